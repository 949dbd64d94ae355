// The engine's own packed float product (model/packed_product.cpp) and the float matrixProduct
// that dispatches to it, against a product summed in double: shapes on and off every block size
// (micro-tile rows and columns, the cache blocks in k, m and n), every transpose, beta 0, 1 and
// another; beta 0 ignores what C held (NaN); the bits do not depend on the team size nor on which
// thread claimed which unit of the work; the optimizer's balanced passes follow the threads'
// measured speeds and cover every value once with the same bits; SGD's step fused into
// a weight-gradient product gives the bits of the product followed by the optimizer's pass; a
// dense layer's bias and ReLU applied in the product's write-back give the bits of the bias laid
// down, the product added onto it and ReLU's pass, and ReLU's derivative applied in the write-back
// of an input gradient those of the product and then the derivative's pass.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "distlab/core/rng.hpp"
#include "distlab/optim/sgd.hpp"
#include "model/matrix_product.hpp"
#include "model/packed_product.hpp"
#include "tensor/parallel_ranges.hpp"
#include "tensor/team_split.hpp"

using namespace distlab;
using kernels::Op;

namespace {

struct Case {
    Op opA, opB;
    std::int64_t m, n, k;
    float beta;
};

std::vector<float> randomFloats(Rng& rng, std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<float>(rng.normal());
    return v;
}

/// Element (i, j) of op(X) for X stored row-major as rows x cols of op(X) (or transposed).
float at(const std::vector<float>& x, Op op, std::int64_t i, std::int64_t j, std::int64_t rows, std::int64_t cols) {
    return op == Op::Transpose ? x[static_cast<std::size_t>(j * rows + i)] : x[static_cast<std::size_t>(i * cols + j)];
}

using Product = void (*)(Op, Op, std::int64_t, std::int64_t, std::int64_t, const float*, const float*, float, float*);

/// packedProduct on one kernel, as a Product.
Product productOn(kernels::PackedKernel kernel) {
    if (kernel == kernels::PackedKernel::Avx512)
        return [](Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float beta, float* c) {
            kernels::packedProduct(kernels::PackedKernel::Avx512, opA, opB, m, n, k, a, b, beta, c);
        };
    return [](Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float beta, float* c) {
        kernels::packedProduct(kernels::PackedKernel::Avx2, opA, opB, m, n, k, a, b, beta, c);
    };
}

/// A data row per packed kernel; a kernel this CPU lacks is skipped.
void kernelRows() {
    QTest::addColumn<kernels::PackedKernel>("kernel");
    QTest::newRow("AVX-512") << kernels::PackedKernel::Avx512;
    QTest::newRow("AVX2") << kernels::PackedKernel::Avx2;
}

/// Runs `product` on random operands and compares every element with the double sum, within the
/// bound of float summation over k terms (k ulps of the sum of the terms' magnitudes).
void checkAgainstReference(Product product, const Case& c, std::uint64_t seed) {
    Rng rng(seed);
    const std::vector<float> a = randomFloats(rng, c.m * c.k), b = randomFloats(rng, c.k * c.n);
    std::vector<float> out = randomFloats(rng, c.m * c.n);
    const std::vector<float> before = out;
    if (c.beta == 0.0f) out.assign(out.size(), std::numeric_limits<float>::quiet_NaN());  // must be ignored
    product(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), c.beta, out.data());
    for (std::int64_t i = 0; i < c.m; ++i)
        for (std::int64_t j = 0; j < c.n; ++j) {
            double sum = 0.0, magnitude = 0.0;
            for (std::int64_t p = 0; p < c.k; ++p) {
                const double term = double(at(a, c.opA, i, p, c.m, c.k)) * double(at(b, c.opB, p, j, c.k, c.n));
                sum += term;
                magnitude += std::abs(term);
            }
            const auto index = static_cast<std::size_t>(i * c.n + j);
            if (c.beta != 0.0f) {
                sum += double(c.beta) * before[index];
                magnitude += std::abs(double(c.beta) * before[index]);
            }
            const double bound = (double(c.k) + 2.0) * magnitude * std::numeric_limits<float>::epsilon() + 1e-30;
            if (!(std::abs(double(out[index]) - sum) <= bound))
                QFAIL(qPrintable(QString("m %1 n %2 k %3 ops %4%5 beta %6: C[%7][%8] = %9, expected %10")
                                     .arg(c.m)
                                     .arg(c.n)
                                     .arg(c.k)
                                     .arg(c.opA == Op::Transpose ? 'T' : 'N')
                                     .arg(c.opB == Op::Transpose ? 'T' : 'N')
                                     .arg(c.beta)
                                     .arg(i)
                                     .arg(j)
                                     .arg(double(out[index]), 0, 'g', 9)
                                     .arg(sum, 0, 'g', 9)));
        }
}

std::vector<Case> cases() {
    // Around the micro-tiles (6, 8 and 16 rows, a 6-row block's last rows in strips of 4; 16, 32 and
    // 64 columns), the cache blocks (k 256, m 128 and 144, n 1024) and the reference workloads'
    // shapes (10 classes, batch 128).
    const std::int64_t sizes[][3] = {{1, 1, 1},      {7, 9, 3},    {8, 32, 16},   {9, 33, 17},     {15, 10, 31},  {16, 16, 256},
                                     {17, 17, 257},  {33, 47, 1},  {128, 10, 64}, {130, 200, 513}, {257, 31, 40}, {64, 1030, 20},
                                     {300, 129, 70}, {5, 1100, 9}, {129, 3, 600}, {6, 16, 8},      {13, 40, 33},  {145, 48, 260},
                                     {150, 17, 12},  {10, 64, 40}, {8, 65, 257},  {11, 127, 19},   {148, 96, 300}};
    std::vector<Case> all;
    for (const auto& s : sizes)
        for (Op opA : {Op::None, Op::Transpose})
            for (Op opB : {Op::None, Op::Transpose})
                for (float beta : {0.0f, 1.0f, 0.5f}) all.push_back({opA, opB, s[0], s[1], s[2], beta});
    return all;
}

/// One pass of `key` split over 2 threads in which thread 1 takes `slowFactor` times as long per
/// unit as thread 0, recorded as a team would.
void timeTwoThreadPass(std::uint64_t key, double slowFactor) {
    TeamSplit split(key, 100, 2);
    split.record(0, 1.0 * static_cast<double>(split.begin(1) - split.begin(0)));
    split.record(1, slowFactor * static_cast<double>(split.begin(2) - split.begin(1)));
    split.update();
}

}  // namespace

class TestPackedProduct : public QObject {
    Q_OBJECT
private slots:
    void matchesReference_data() { kernelRows(); }
    void matchesReference() {
        QFETCH(kernels::PackedKernel, kernel);
        if (!kernels::packedKernelAvailable(kernel)) QSKIP("this CPU lacks the kernel's instructions");
        std::uint64_t seed = 1;
        for (const Case& c : cases()) {
            checkAgainstReference(productOn(kernel), c, seed++);
            if (QTest::currentTestFailed()) return;
        }
    }

    void rowsFirstWalkMatchesReference_data() { kernelRows(); }
    void rowsFirstWalkMatchesReference() {
        // Outputs over 1 MiB with all of k in one block, on one thread: the walk that takes A's
        // strips first over parts of B's block (two parts of 208 and 52 columns at k = 300, the last
        // tile 4 wide; one part at k = 97), the last rows in strips of 4 (1,100 = 7 x 144 + 92).
        QFETCH(kernels::PackedKernel, kernel);
        if (!kernels::packedKernelAvailable(kernel)) QSKIP("this CPU lacks the kernel's instructions");
        const ScopedTeamSize one(1);
        std::uint64_t seed = 500;
        for (const Case& c : {Case{Op::Transpose, Op::None, 1100, 260, 300, 0.0f}, Case{Op::None, Op::Transpose, 1100, 260, 300, 1.0f},
                              Case{Op::Transpose, Op::Transpose, 1030, 300, 97, 0.5f}}) {
            checkAgainstReference(productOn(kernel), c, seed++);
            if (QTest::currentTestFailed()) return;
        }
    }

    void kernelsGiveTheSameBits() {  // one FMA chain per element in k order on either kernel
        if (!kernels::packedKernelAvailable(kernels::PackedKernel::Avx512) || !kernels::packedKernelAvailable(kernels::PackedKernel::Avx2))
            QSKIP("this CPU runs only one of the kernels");
        Rng rng(11);
        for (const Case& c : cases()) {
            const std::vector<float> a = randomFloats(rng, c.m * c.k), b = randomFloats(rng, c.k * c.n),
                                     start = randomFloats(rng, c.m * c.n);
            std::vector<float> wide = start, narrow = start;
            productOn(kernels::PackedKernel::Avx512)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), c.beta, wide.data());
            productOn(kernels::PackedKernel::Avx2)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), c.beta, narrow.data());
            QVERIFY(wide == narrow);
        }
    }

    void dispatchedProductMatchesReference() {  // OpenBLAS or the packed product, whichever this CPU runs
        std::uint64_t seed = 1000;
        for (const Case& c : cases()) {
            checkAgainstReference(static_cast<Product>(kernels::matrixProduct), c, seed++);
            if (QTest::currentTestFailed()) return;
        }
    }

    void bitsDoNotDependOnTeamSize_data() { kernelRows(); }
    void bitsDoNotDependOnTeamSize() {
        QFETCH(kernels::PackedKernel, kernel);
        if (!kernels::packedKernelAvailable(kernel)) QSKIP("this CPU lacks the kernel's instructions");
        Rng rng(7);
        // A team splits the first and third along their columns (their rows one block of A, the
        // last 8 in strips of 4), the fourth along its rows although it is wider (its rows more than
        // a block), the rest along their rows. The fourth and sixth have 6 and 3 blocks of k to sum
        // in order, with fewer units per block than a team of four holds at once. The fifth a lone
        // thread walks rows first (1.6 MB), a team of two to four (0.4-0.8 MB each) a column of
        // tiles at a time.
        for (const Case& c : {Case{Op::None, Op::None, 128, 1024, 700, 1.0f}, Case{Op::Transpose, Op::None, 700, 300, 128, 0.0f},
                              Case{Op::None, Op::Transpose, 128, 500, 300, 0.0f}, Case{Op::Transpose, Op::None, 600, 10, 128, 0.0f},
                              Case{Op::None, Op::Transpose, 200, 300, 1500, 0.5f}, Case{Op::Transpose, Op::None, 1400, 300, 128, 1.0f},
                              Case{Op::None, Op::None, 130, 10, 700, 0.0f}}) {
            const std::vector<float> a = randomFloats(rng, c.m * c.k), b = randomFloats(rng, c.k * c.n),
                                     start = randomFloats(rng, c.m * c.n);
            std::vector<std::vector<float>> results;
            for (int team : {1, 2, 3, 4}) {
                const ScopedTeamSize scope(team);
                std::vector<float> out = start;
                productOn(kernel)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), c.beta, out.data());
                results.push_back(std::move(out));
            }
            for (std::size_t team = 1; team < results.size(); ++team)
                QVERIFY2(results[0] == results[team],
                         qPrintable(QString("m %1 n %2 k %3, team %4").arg(c.m).arg(c.n).arg(c.k).arg(team + 1)));
        }
    }

    void bitsDoNotDependOnWhoClaimedWhichUnit_data() { kernelRows(); }
    void bitsDoNotDependOnWhoClaimedWhichUnit() {
        QFETCH(kernels::PackedKernel, kernel);
        if (!kernels::packedKernelAvailable(kernel)) QSKIP("this CPU lacks the kernel's instructions");
        // The same product again and again on a team of four (more threads than this machine may
        // have cores, so they are interrupted anywhere): which thread claims which unit changes
        // from call to call, the bits must not, and each element's three blocks of k must be summed
        // in order even where different threads took them.
        const Case c{Op::None, Op::None, 64, 2048, 700, 0.0f};
        Rng rng(9);
        const std::vector<float> a = randomFloats(rng, c.m * c.k), b = randomFloats(rng, c.k * c.n);
        std::vector<float> first(static_cast<std::size_t>(c.m * c.n)), out(first.size());
        {
            const ScopedTeamSize one(1);
            productOn(kernel)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), c.beta, first.data());
        }
        const ScopedTeamSize four(4);
        for (int call = 0; call < 40; ++call) {
            productOn(kernel)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), c.beta, out.data());
            QVERIFY(out == first);
        }
    }

    void sgdStepIsTheProductThenSgd_data() { kernelRows(); }
    void sgdStepIsTheProductThenSgd() {
        // The weight gradient's product with SGD's step applied to each finished element leaves W
        // as the product into a buffer followed by Sgd's pass does, bit for bit, on any team size
        // and however the team's shares were balanced; it returns Σ T² (to float summation).
        QFETCH(kernels::PackedKernel, kernel);
        if (!kernels::packedKernelAvailable(kernel)) QSKIP("this CPU lacks the kernel's instructions");
        // Where the engine's build rounds SGD's step twice (no FMA), no product applies it.
        if (!kernels::fusedSgdStepAvailable(784, 256, 256)) QSKIP("this engine build applies no fused SGD step");
        const float rate = 0.037f;
        Rng rng(21);
        // Weight gradients x^T dz ([in, out] over a batch of k rows) around the tiles and of W1's
        // and W3's layers, then other transposes; k up to the one block the step needs.
        for (const Case& c : {Case{Op::Transpose, Op::None, 784, 256, 256, 0}, Case{Op::Transpose, Op::None, 3072, 1024, 128, 0},
                              Case{Op::Transpose, Op::None, 128, 10, 256, 0}, Case{Op::Transpose, Op::None, 7, 9, 3, 0},
                              Case{Op::Transpose, Op::None, 145, 1030, 17, 0}, Case{Op::None, Op::None, 33, 47, 255, 0},
                              Case{Op::None, Op::Transpose, 300, 129, 70, 0}, Case{Op::Transpose, Op::Transpose, 13, 40, 1, 0},
                              Case{Op::Transpose, Op::None, 1024, 1024, 128, 0}}) {
            const std::vector<float> a = randomFloats(rng, c.m * c.k), b = randomFloats(rng, c.k * c.n),
                                     start = randomFloats(rng, c.m * c.n);
            std::vector<float> gradient(start.size());
            productOn(kernel)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), 0.0f, gradient.data());
            std::vector<float> expected = start;
            Sgd(0.0f, false, c.m * c.n).apply(expected, gradient, rate);
            double squares = 0.0;
            for (float g : gradient) squares += double(g) * double(g);
            std::vector<double> tileSums(static_cast<std::size_t>(kernels::packedSgdTileCount(c.m, c.n)));
            std::vector<double> returned;
            for (int team : {1, 2, 3, 2, 2}) {
                const ScopedTeamSize scope(team);
                std::vector<float> w = start;
                returned.push_back(
                    kernels::packedSgdStep(kernel, c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), rate, w.data(), tileSums));
                QVERIFY2(w == expected, qPrintable(QString("m %1 n %2 k %3, team %4").arg(c.m).arg(c.n).arg(c.k).arg(team)));
            }
            QVERIFY(std::all_of(returned.begin(), returned.end(), [&](double r) { return r == returned[0]; }));
            QVERIFY2(std::abs(returned[0] - squares) <= 1e-6 * squares,
                     qPrintable(QString("Σ T² %1, expected %2").arg(returned[0], 0, 'g', 12).arg(squares, 0, 'g', 12)));
        }
        std::vector<float> w(4), a(2 * kernels::kPackedSgdDepthMost + 2), b(a.size() * 2);
        std::vector<double> tileSums(1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 kernels::packedSgdStep(kernel, Op::Transpose, Op::None, 2, 2, kernels::kPackedSgdDepthMost + 1, a.data(),
                                                        b.data(), rate, w.data(), tileSums));
    }

    void affineProductIsTheProductThenBiasAndRelu_data() { kernelRows(); }
    void affineProductIsTheProductThenBiasAndRelu() {
        // x W + b, then ReLU, written in the product's write-back: the bits of C holding the bias,
        // the product added onto it (beta 1) and then z > 0 ? z : 0, for shapes around the tiles,
        // over several blocks of k (the bias under the first, ReLU after the last), narrow outputs,
        // on any team size. A NaN in x gives its row NaN before ReLU and 0 after, as the pass does.
        QFETCH(kernels::PackedKernel, kernel);
        if (!kernels::packedKernelAvailable(kernel)) QSKIP("this CPU lacks the kernel's instructions");
        Rng rng(23);
        for (const Case& c :
             {Case{Op::None, Op::None, 256, 256, 784, 1}, Case{Op::None, Op::None, 128, 1024, 3072, 1},
              Case{Op::None, Op::None, 128, 10, 1024, 1}, Case{Op::None, Op::None, 7, 9, 3, 1}, Case{Op::None, Op::None, 145, 1030, 257, 1},
              Case{Op::None, Op::None, 300, 33, 1, 1}, Case{Op::Transpose, Op::Transpose, 40, 50, 300, 1}}) {
            std::vector<float> a = randomFloats(rng, c.m * c.k);
            const std::vector<float> b = randomFloats(rng, c.k * c.n), bias = randomFloats(rng, c.n);
            a[static_cast<std::size_t>(c.k / 2)] = std::numeric_limits<float>::quiet_NaN();  // one row of z NaN
            for (const bool relu : {false, true}) {
                std::vector<float> expected(static_cast<std::size_t>(c.m * c.n));
                for (std::int64_t i = 0; i < c.m; ++i) std::copy(bias.begin(), bias.end(), expected.begin() + i * c.n);
                productOn(kernel)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), 1.0f, expected.data());
                if (relu)
                    for (float& z : expected) z = z > 0.0f ? z : 0.0f;
                for (int team : {1, 2, 3}) {
                    const ScopedTeamSize scope(team);
                    std::vector<float> out(expected.size(), std::numeric_limits<float>::quiet_NaN());  // never read
                    kernels::packedAffineProduct(kernel, c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), bias.data(), relu, out.data());
                    const bool same = std::equal(out.begin(), out.end(), expected.begin(),
                                                 [](float x, float y) { return x == y || (std::isnan(x) && std::isnan(y)); });
                    QVERIFY2(same, qPrintable(QString("m %1 n %2 k %3, relu %4, team %5").arg(c.m).arg(c.n).arg(c.k).arg(relu).arg(team)));
                }
                if (relu) QVERIFY(std::none_of(expected.begin(), expected.end(), [](float z) { return std::isnan(z) || z < 0; }));
            }
        }
    }

    void maskedProductIsTheProductThenReluDerivative_data() { kernelRows(); }
    void maskedProductIsTheProductThenReluDerivative() {
        // dz W^T with the derivative of the ReLU whose output is the mask applied as each tile is
        // written: the bits of the product (beta 0) and then x > 0 ? dx : 0, for the input
        // gradients of W1's and W3's layers (W3's over four blocks of k), shapes around the tiles,
        // narrow outputs, on any team size; a mask of 0, -0, a negative or NaN gives 0.
        QFETCH(kernels::PackedKernel, kernel);
        if (!kernels::packedKernelAvailable(kernel)) QSKIP("this CPU lacks the kernel's instructions");
        Rng rng(29);
        for (const Case& c : {Case{Op::None, Op::Transpose, 256, 256, 128, 0}, Case{Op::None, Op::Transpose, 128, 1024, 1024, 0},
                              Case{Op::None, Op::Transpose, 7, 9, 3, 0}, Case{Op::None, Op::Transpose, 145, 1030, 257, 0},
                              Case{Op::None, Op::Transpose, 300, 10, 64, 0}, Case{Op::None, Op::None, 40, 50, 300, 0}}) {
            const std::vector<float> a = randomFloats(rng, c.m * c.k), b = randomFloats(rng, c.k * c.n);
            std::vector<float> mask = randomFloats(rng, c.m * c.n);
            for (std::size_t i = 0; i < mask.size(); i += 7) mask[i] = 0.0f;
            for (std::size_t i = 3; i < mask.size(); i += 11) mask[i] = -0.0f;
            for (std::size_t i = 5; i < mask.size(); i += 13) mask[i] = std::numeric_limits<float>::quiet_NaN();
            std::vector<float> expected(static_cast<std::size_t>(c.m * c.n));
            productOn(kernel)(c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), 0.0f, expected.data());
            for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = mask[i] > 0.0f ? expected[i] : 0.0f;
            for (int team : {1, 2, 3}) {
                const ScopedTeamSize scope(team);
                std::vector<float> out(expected.size(), std::numeric_limits<float>::quiet_NaN());  // never read
                kernels::packedMaskedProduct(kernel, c.opA, c.opB, c.m, c.n, c.k, a.data(), b.data(), mask.data(), out.data());
                QVERIFY2(out == expected, qPrintable(QString("m %1 n %2 k %3, team %4").arg(c.m).arg(c.n).arg(c.k).arg(team)));
            }
        }
    }

    void teamSplitFollowsTheThreadsSpeeds() {
        constexpr std::uint64_t key = 12345;
        {
            const TeamSplit even(key, 100, 2);
            QCOMPARE(even.begin(0), 0);
            QCOMPARE(even.begin(1), 50);
            QCOMPARE(even.begin(2), 100);
        }
        for (int product = 0; product < 30; ++product) timeTwoThreadPass(key, 2.0);  // thread 1 twice as slow per unit
        const TeamSplit learnt(key, 100, 2);
        QVERIFY2(learnt.begin(1) >= 64 && learnt.begin(1) <= 70, qPrintable(QString::number(learnt.begin(1))));  // about 2:1
        QCOMPARE(learnt.begin(2), 100);
        const TeamSplit other(key + 1, 100, 2);  // another product keeps its own estimates
        QCOMPARE(other.begin(1), 50);
    }

    void passesLearnTheirSplitsSideBySide() {
        // A step's passes alternate (the optimizer's update of each layer in turn); keys that once
        // shared a table slot (these differ only in their high bits) reset each other's estimates
        // on every call, and nothing was learnt.
        const std::uint64_t first = 0x10ull << 40, second = 0x20ull << 40;
        for (int step = 0; step < 30; ++step) {
            timeTwoThreadPass(first, 2.0);  // thread 1 slower on the first pass, faster on the second
            timeTwoThreadPass(second, 0.5);
        }
        const TeamSplit learntFirst(first, 100, 2), learntSecond(second, 100, 2);
        QVERIFY2(learntFirst.begin(1) >= 64 && learntFirst.begin(1) <= 70, qPrintable(QString::number(learntFirst.begin(1))));
        QVERIFY2(learntSecond.begin(1) >= 30 && learntSecond.begin(1) <= 36, qPrintable(QString::number(learntSecond.begin(1))));
    }

    void balancedPartsCoverEveryValueOnce() {
        const ScopedTeamSize two(2);
        const std::size_t n = 300'001;  // above the split's minimum, not a whole number of blocks
        std::vector<int> visits(n, 0);
        for (int pass = 0; pass < 20; ++pass)
            forEachBalancedPart(77, n, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) ++visits[i];
            });
        QVERIFY(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 20; }));
    }

    void balancedUpdateHasTheSameBits() {  // SGD with momentum on one thread and on a balanced two
        const std::size_t n = 300'001;
        Rng rng(5);
        std::vector<float> start = randomFloats(rng, static_cast<std::int64_t>(n)), g = randomFloats(rng, static_cast<std::int64_t>(n));
        std::vector<std::vector<float>> results;
        for (int team : {1, 2}) {
            const ScopedTeamSize scope(team);
            Sgd sgd(0.9f, true, static_cast<std::int64_t>(n));
            std::vector<float> p = start;
            for (int step = 0; step < 20; ++step) sgd.apply(p, g, 0.01f);
            results.push_back(std::move(p));
        }
        QVERIFY(results[0] == results[1]);
    }
};

QTEST_APPLESS_MAIN(TestPackedProduct)
#include "test_packed_product.moc"
