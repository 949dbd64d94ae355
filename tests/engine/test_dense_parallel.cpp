// The dense layer's float passes split across the OpenMP team (bias, activation, its gradient,
// the bias gradient's column sums, the products) at sizes where they do split: the same bits on
// one thread and on two, and the same values as the double kernels on one thread.
#include <QtTest>

#include <omp.h>

#include <vector>

#include "distlab/core/rng.hpp"
#include "model/dense_kernels.hpp"

using namespace distlab;

namespace {

constexpr std::int64_t kBatch = 128, kIn = 96, kOut = 1000;  // 128 000 values a pass: above the split's minimum

struct Outputs {
    std::vector<float> z, y, dz, dw, db, dx;
};

template <typename T>
std::vector<T> randomValues(std::uint64_t seed, std::int64_t n) {
    Rng rng(seed);
    std::vector<T> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<T>(rng.normal());
    return v;
}

/// One forward and backward of a ReLU dense layer on a team of `threads`, writing the gradients
/// (accumulate false) and then adding a second backward onto them (accumulate true).
Outputs runLayer(int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    const auto x = randomValues<float>(1, kBatch * kIn), w = randomValues<float>(2, kIn * kOut), b = randomValues<float>(3, kOut),
               dy = randomValues<float>(4, kBatch * kOut);
    Outputs o{std::vector<float>(kBatch * kOut), std::vector<float>(kBatch * kOut), std::vector<float>(kBatch * kOut),
              std::vector<float>(kIn * kOut),    std::vector<float>(kOut),          std::vector<float>(kBatch * kIn)};
    kernels::denseForward(x.data(), w.data(), b.data(), o.z.data(), kBatch, kIn, kOut);
    kernels::activate(Activation::Relu, o.z.data(), o.y.data(), kBatch * kOut);
    kernels::activationBackward(Activation::Relu, o.z.data(), o.y.data(), dy.data(), o.dz.data(), kBatch * kOut);
    kernels::denseBackward(x.data(), w.data(), o.dz.data(), o.dw.data(), o.db.data(), o.dx.data(), kBatch, kIn, kOut, false);
    kernels::denseBackward(x.data(), w.data(), o.dz.data(), o.dw.data(), o.db.data(), o.dx.data(), kBatch, kIn, kOut, true);
    omp_set_num_threads(before);
    return o;
}

}  // namespace

class TestDenseParallel : public QObject {
    Q_OBJECT
private slots:
    void bitsDoNotDependOnTeamSize() {
        const Outputs one = runLayer(1), two = runLayer(2);
        QVERIFY(one.z == two.z);
        QVERIFY(one.y == two.y);
        QVERIFY(one.dz == two.dz);
        QVERIFY(one.dw == two.dw);
        QVERIFY(one.db == two.db);
        QVERIFY(one.dx == two.dx);
    }

    void matchesTheDoubleKernels() {
        const Outputs got = runLayer(2);
        const auto x = randomValues<double>(1, kBatch * kIn), w = randomValues<double>(2, kIn * kOut), b = randomValues<double>(3, kOut),
                   dy = randomValues<double>(4, kBatch * kOut);
        // The same draws as the float run, rounded the same way.
        std::vector<double> xf(x.size()), wf(w.size()), bf(b.size()), dyf(dy.size());
        for (std::size_t i = 0; i < x.size(); ++i) xf[i] = static_cast<float>(x[i]);
        for (std::size_t i = 0; i < w.size(); ++i) wf[i] = static_cast<float>(w[i]);
        for (std::size_t i = 0; i < b.size(); ++i) bf[i] = static_cast<float>(b[i]);
        for (std::size_t i = 0; i < dy.size(); ++i) dyf[i] = static_cast<float>(dy[i]);
        std::vector<double> z(kBatch * kOut), y(kBatch * kOut), dz(kBatch * kOut), dw(kIn * kOut), db(kOut), dx(kBatch * kIn);
        kernels::denseForward(xf.data(), wf.data(), bf.data(), z.data(), kBatch, kIn, kOut);
        kernels::activate(Activation::Relu, z.data(), y.data(), kBatch * kOut);
        kernels::activationBackward(Activation::Relu, z.data(), y.data(), dyf.data(), dz.data(), kBatch * kOut);
        kernels::denseBackward(xf.data(), wf.data(), dz.data(), dw.data(), db.data(), dx.data(), kBatch, kIn, kOut, false);
        kernels::denseBackward(xf.data(), wf.data(), dz.data(), dw.data(), db.data(), dx.data(), kBatch, kIn, kOut, true);
        const auto close = [](const std::vector<float>& value, const std::vector<double>& want) {
            for (std::size_t i = 0; i < want.size(); ++i)
                if (std::abs(double(value[i]) - want[i]) > 1e-3 * (1.0 + std::abs(want[i]))) return false;
            return true;
        };
        QVERIFY(close(got.z, z));
        QVERIFY(close(got.y, y));
        QVERIFY(close(got.db, db));
        QVERIFY(close(got.dw, dw));
        QVERIFY(close(got.dx, dx));
    }
};

QTEST_APPLESS_MAIN(TestDenseParallel)
#include "test_dense_parallel.moc"
