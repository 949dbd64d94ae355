// The GPU tensor core's kernels against the CPU engine's (engine/src/model/dense_kernels.hpp,
// engine/src/optim) on fresh random inputs: the dense layer's forward and backward for every
// activation in float32 without TF32, within 1e-5 of the largest reference value; both losses;
// every optimizer over three steps; float16 and bfloat16 conversions and the tensor-core forward
// and backward; the caching allocator and a logical GPU's memory limit with the clear
// out-of-memory message. Exit 77 (CTest: skipped) where no GPU is usable.
#include <chrono>
#include <cstring>

#include "cuda_test_support.hpp"
#include "distlab/optim/optimizer.hpp"
#include "distlab/tensor/dtype.hpp"
#include "model/dense_kernels.hpp"

using namespace distlab::gpu_testing;

namespace {

const char* kActivationNames[] = {"linear", "relu", "tanh", "sigmoid", "gelu"};

void denseMatchesTheCpu(DistlabCudaDevice* device, long long rows, long long inputs, long long units, int activation,
                        std::mt19937& random) {
    const auto n = [](long long a, long long b) { return static_cast<std::size_t>(a * b); };
    const std::vector<float> x = randomValues(n(rows, inputs), random);
    const std::vector<float> w = randomValues(n(inputs, units), random, 1.0f / std::sqrt(float(inputs)));
    const std::vector<float> b = randomValues(n(1, units), random, 0.1f);
    const std::vector<float> dy = randomValues(n(rows, units), random);
    const std::vector<float> dw0 = randomValues(n(inputs, units), random, 0.01f);  // gradients accumulate into these
    const std::vector<float> db0 = randomValues(n(1, units), random, 0.01f);

    // The CPU engine.
    const auto act = static_cast<distlab::Activation>(activation);
    std::vector<float> z(n(rows, units)), y(n(rows, units)), dz(n(rows, units)), dw = dw0, db = db0, dx(n(rows, inputs));
    distlab::kernels::denseForward(x.data(), w.data(), b.data(), z.data(), rows, inputs, units);
    distlab::kernels::activate(act, z.data(), y.data(), rows * units);
    distlab::kernels::activationBackward(act, z.data(), y.data(), dy.data(), dz.data(), rows * units);
    distlab::kernels::denseBackward(x.data(), w.data(), dz.data(), dw.data(), db.data(), dx.data(), rows, inputs, units);

    // The GPU.
    Buffers buffers(device);
    float *gx = buffers.upload(x), *gw = buffers.upload(w), *gb = buffers.upload(b), *gdy = buffers.upload(dy);
    float *gdw = buffers.upload(dw0), *gdb = buffers.upload(db0);
    float *gz = buffers.allocate(z.size()), *gy = buffers.allocate(y.size()), *gdz = buffers.allocate(dz.size());
    float* gdx = buffers.allocate(dx.size());
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (distlabCudaDenseForward(device, gx, gw, gb, gz, gy, rows, inputs, units, activation, message) != 0 ||
        distlabCudaDenseBackward(device, gx, gw, gz, gy, gdy, gdz, gdw, gdb, gdx, rows, inputs, units, activation, message) != 0) {
        expect(false, message);
        return;
    }
    const std::string where = std::string(kActivationNames[activation]) + " [" + std::to_string(rows) + "x" + std::to_string(inputs) +
                              "] x [" + std::to_string(inputs) + "x" + std::to_string(units) + "]: ";
    const struct {
        const char* name;
        const std::vector<float>& cpu;
        std::vector<float> gpu;
    } results[] = {{"z", z, buffers.download(gz, z.size())},     {"y", y, buffers.download(gy, y.size())},
                   {"dz", dz, buffers.download(gdz, dz.size())}, {"dw", dw, buffers.download(gdw, dw.size())},
                   {"db", db, buffers.download(gdb, db.size())}, {"dx", dx, buffers.download(gdx, dx.size())}};
    for (const auto& result : results) {
        const double error = relativeError(result.gpu, result.cpu);
        std::printf("  %s%-2s relative error %.2e\n", where.c_str(), result.name, error);
        expect(error <= 1e-5, where + result.name + " differs from the CPU by " + std::to_string(error));
    }
}

/// SGD (plain, momentum, nesterov) and Adam over three steps against the engine's optimizers.
void optimizersMatchTheCpu(DistlabCudaDevice* device, std::mt19937& random) {
    constexpr long long count = 100003;
    const std::vector<float> start = randomValues(count, random);
    const std::vector<std::vector<float>> grads = {randomValues(count, random), randomValues(count, random), randomValues(count, random)};
    struct Case {
        const char* name;
        distlab::OptimizerConfig config;
    };
    std::vector<Case> cases(4);
    cases[0] = {"sgd", {}};
    cases[1] = {"momentum", {}};
    cases[1].config.momentum = 0.9;
    cases[2] = {"nesterov", {}};
    cases[2].config.momentum = 0.9;
    cases[2].config.nesterov = true;
    cases[3] = {"adam", {}};
    cases[3].config.type = distlab::OptimizerKind::Adam;
    const float rate = 0.05f;
    for (const Case& c : cases) {
        std::vector<float> expected = start;
        const auto cpu = distlab::makeOptimizer(c.config, count);
        for (const auto& g : grads) cpu->apply(expected, g, rate);

        Buffers buffers(device);
        float* values = buffers.upload(start);
        float* slot0 = buffers.upload(std::vector<float>(count, 0.0f));
        float* slot1 = buffers.upload(std::vector<float>(count, 0.0f));
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        for (std::size_t t = 1; t <= grads.size(); ++t) {
            float* g = buffers.upload(grads[t - 1]);
            int code = 0;
            if (c.config.type == distlab::OptimizerKind::Adam) {
                const auto b1 = static_cast<float>(c.config.beta1), b2 = static_cast<float>(c.config.beta2);
                const float stepSize = static_cast<float>(rate / (1.0 - std::pow(double(b1), double(t))));
                const float invSecond = static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(double(b2), double(t))));
                code = distlabCudaAdam(device, values, g, slot0, slot1, count, stepSize, invSecond, b1, b2,
                                       static_cast<float>(c.config.epsilon), message);
            } else {
                code = distlabCudaSgd(device, values, g, c.config.momentum != 0.0 ? slot0 : nullptr, count, rate,
                                      static_cast<float>(c.config.momentum), c.config.nesterov ? 1 : 0, message);
            }
            if (code != 0) expect(false, message);
        }
        const double error = relativeError(buffers.download(values, count), expected);
        std::printf("  %s, 3 steps: relative error %.2e\n", c.name, error);
        expect(error <= 1e-6, std::string(c.name) + " differs from the CPU by " + std::to_string(error));
    }
}

/// Softmax cross-entropy and mean squared error: per-example losses, gradients, correct counts.
void lossesMatchTheCpu(DistlabCudaDevice* device, std::mt19937& random) {
    const long long rows = 300, classes = 10;
    const std::vector<float> logits = randomValues(rows * classes, random, 3.0f);
    std::vector<std::int32_t> labels(rows);
    for (long long r = 0; r < rows; ++r) labels[r] = static_cast<std::int32_t>(random() % classes);
    const float scale = 1.0f / 512.0f;
    std::vector<float> grad(logits.size());
    std::int64_t correct = 0;
    const float total = distlab::kernels::softmaxCrossEntropy(logits.data(), labels.data(), grad.data(), rows, classes, scale, &correct);

    Buffers buffers(device);
    float* gl = buffers.upload(logits);
    void* labelMemory = nullptr;
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    expect(distlabCudaAllocate(device, labels.size() * sizeof(int), &labelMemory, message) == 0, message);
    expect(distlabCudaUpload(device, labelMemory, labels.data(), labels.size() * sizeof(int), message) == 0, message);
    float *gg = buffers.allocate(grad.size()), *loss = buffers.allocate(rows);
    void* correctMemory = nullptr;
    expect(distlabCudaAllocate(device, rows * sizeof(int), &correctMemory, message) == 0, message);
    if (distlabCudaSoftmaxCrossEntropy(device, gl, static_cast<const int*>(labelMemory), gg, loss, static_cast<int*>(correctMemory), rows,
                                       classes, scale, message) != 0)
        expect(false, message);
    const std::vector<float> rowLoss = buffers.download(loss, rows);
    std::vector<int> rowCorrect(rows);
    distlabCudaDownload(device, rowCorrect.data(), correctMemory, rows * sizeof(int), message);
    distlabCudaSynchronize(device, message);
    double gpuTotal = 0.0;
    for (float value : rowLoss) gpuTotal += value;
    long long gpuCorrect = 0;
    for (int value : rowCorrect) gpuCorrect += value;
    const double gradError = relativeError(buffers.download(gg, grad.size()), grad);
    const double lossError = std::abs(gpuTotal - total) / std::abs(double(total));
    std::printf("  softmax cross-entropy: gradient %.2e, loss sum %.2e, correct %lld / %lld\n", gradError, lossError, gpuCorrect,
                static_cast<long long>(correct));
    expect(gradError <= 1e-5 && lossError <= 1e-5, "softmax cross-entropy differs from the CPU");
    expect(gpuCorrect == correct, "softmax cross-entropy counts the same correct predictions");
    distlabCudaRelease(device, labelMemory);
    distlabCudaRelease(device, correctMemory);

    const long long outputs = 3;
    const std::vector<float> predictions = randomValues(rows * outputs, random), targets = randomValues(rows * outputs, random);
    std::vector<float> dpred(predictions.size());
    const float mse = distlab::kernels::meanSquaredError(predictions.data(), targets.data(), dpred.data(), rows, outputs, scale);
    float *gp = buffers.upload(predictions), *gt = buffers.upload(targets), *gd = buffers.allocate(dpred.size());
    float* mseRows = buffers.allocate(rows);
    if (distlabCudaMeanSquaredError(device, gp, gt, gd, mseRows, rows, outputs, scale, message) != 0) expect(false, message);
    double mseTotal = 0.0;
    for (float value : buffers.download(mseRows, rows)) mseTotal += value;
    const double mseGradError = relativeError(buffers.download(gd, dpred.size()), dpred);
    const double mseError = std::abs(mseTotal - mse) / std::abs(double(mse));
    std::printf("  mean squared error: gradient %.2e, loss sum %.2e\n", mseGradError, mseError);
    expect(mseGradError <= 1e-5 && mseError <= 1e-5, "mean squared error differs from the CPU");
}

/// 16-bit compute: the device's conversions are the engine's (dtype.hpp) bit for bit, and the
/// tensor-core forward of 16-bit inputs with float32 accumulation equals the CPU's float32
/// forward of the same (rounded) values. Then what tensor cores buy on a large product.
void sixteenBitsOnTensorCores(DistlabCudaDevice* device, std::mt19937& random) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    for (const int half : {1, 2}) {
        const distlab::DType dtype = half == 1 ? distlab::DType::Float16 : distlab::DType::BFloat16;
        const char* name = half == 1 ? "float16" : "bfloat16";
        // Conversions, with values across the ranges (denormals, overflow to infinity, ties).
        std::vector<float> values = randomValues(65536, random, 300.0f);
        values.push_back(1e-7f);
        values.push_back(70000.0f);
        values.push_back(1.0009765625f);  // a tie between two float16 neighbours
        const auto count = static_cast<long long>(values.size());
        std::vector<std::uint16_t> expected(values.size());
        distlab::narrow16(dtype, values.data(), expected.data(), values.size());
        Buffers buffers(device);
        float* source = buffers.upload(values);
        void* bits = buffers.allocate(values.size() / 2 + 1);
        std::vector<std::uint16_t> converted(values.size());
        if (distlabCudaToHalf(device, half, source, bits, count, message) != 0 ||
            distlabCudaDownload(device, converted.data(), bits, values.size() * 2, message) != 0 ||
            distlabCudaSynchronize(device, message) != 0)
            return expect(false, message);
        expect(converted == expected, std::string(name) + ": the device rounds as dtype.hpp does");
        float* back = buffers.allocate(values.size());
        if (distlabCudaFromHalf(device, half, bits, back, count, message) != 0) return expect(false, message);
        std::vector<float> widened(values.size());
        distlab::widen16(dtype, expected.data(), widened.data(), values.size());
        expect(buffers.download(back, values.size()) == widened, std::string(name) + ": the device widens as dtype.hpp does");

        // The forward.
        const long long rows = 256, inputs = 784, units = 256;
        auto rounded = [&](std::vector<float> v) {
            std::vector<std::uint16_t> b(v.size());
            distlab::narrow16(dtype, v.data(), b.data(), v.size());
            distlab::widen16(dtype, b.data(), v.data(), v.size());
            return v;
        };
        const std::vector<float> x = rounded(randomValues(rows * inputs, random));
        const std::vector<float> w = rounded(randomValues(inputs * units, random, 1.0f / 28.0f));
        const std::vector<float> bias = randomValues(units, random, 0.1f);
        std::vector<float> z(rows * units), y(rows * units);
        distlab::kernels::denseForward(x.data(), w.data(), bias.data(), z.data(), rows, inputs, units);
        distlab::kernels::activate(distlab::Activation::Gelu, z.data(), y.data(), rows * units);
        float *gx = buffers.upload(x), *gw = buffers.upload(w), *gb = buffers.upload(bias);
        void* x16 = buffers.allocate(x.size() / 2 + 1);
        void* w16 = buffers.allocate(w.size() / 2 + 1);
        float *gz = buffers.allocate(z.size()), *gy = buffers.allocate(y.size());
        if (distlabCudaToHalf(device, half, gx, x16, static_cast<long long>(x.size()), message) != 0 ||
            distlabCudaToHalf(device, half, gw, w16, static_cast<long long>(w.size()), message) != 0 ||
            distlabCudaDenseForwardHalf(device, half, x16, w16, gb, gz, gy, rows, inputs, units, 4, message) != 0)
            return expect(false, message);
        const double error = relativeError(buffers.download(gy, y.size()), y);
        std::printf("  %s inputs on tensor cores, float32 accumulation, gelu [256x784]x[784x256]: relative error %.2e\n", name, error);
        expect(error <= 1e-5, std::string(name) + " forward differs from the CPU's float32 forward of the same values");

        // The backward. Its products take the 16-bit dz the GPU rounded: the CPU computes the same
        // products in float32 from those very operands; dz itself against the CPU's activation
        // gradient, the bias gradient against column sums of the GPU's float32 dz.
        const std::vector<float> dy = randomValues(rows * units, random);
        float *gdy = buffers.upload(dy), *gdz = buffers.allocate(z.size()), *gdw = buffers.upload(std::vector<float>(inputs * units, 0.0f));
        float *gdb = buffers.upload(std::vector<float>(units, 0.0f)), *gdx = buffers.allocate(rows * inputs);
        void* gdz16 = buffers.allocate(z.size() / 2 + 1);
        if (distlabCudaDenseBackwardHalf(device, half, x16, w16, gz, gy, gdy, gdz, gdz16, gdw, gdb, gdx, rows, inputs, units, 4, message) !=
            0)
            return expect(false, message);
        std::vector<float> cpuDz(z.size());
        distlab::kernels::activationBackward(distlab::Activation::Gelu, z.data(), y.data(), dy.data(), cpuDz.data(), rows * units);
        const std::vector<float> gpuDz = buffers.download(gdz, z.size());
        std::vector<std::uint16_t> dzBits(z.size());
        distlabCudaDownload(device, dzBits.data(), gdz16, dzBits.size() * 2, message);
        distlabCudaSynchronize(device, message);
        std::vector<float> dz16(z.size());
        distlab::widen16(dtype, dzBits.data(), dz16.data(), dz16.size());
        std::vector<float> dw(inputs * units, 0.0f), db(units, 0.0f), dx(rows * inputs);
        distlab::kernels::denseBackward(x.data(), w.data(), dz16.data(), dw.data(), db.data(), dx.data(), rows, inputs, units);
        for (long long j = 0; j < units; ++j) {
            float sum = 0.0f;
            for (long long r = 0; r < rows; ++r) sum += gpuDz[r * units + j];
            db[j] = sum;
        }
        const double dzError = relativeError(gpuDz, cpuDz);
        const double dwError = relativeError(buffers.download(gdw, dw.size()), dw);
        const double dbError = relativeError(buffers.download(gdb, db.size()), db);
        const double dxError = relativeError(buffers.download(gdx, dx.size()), dx);
        std::printf("  %s backward on tensor cores: dz %.2e, dw %.2e, db %.2e, dx %.2e\n", name, dzError, dwError, dbError, dxError);
        expect(dzError <= 1e-5 && dwError <= 1e-5 && dbError <= 1e-5 && dxError <= 1e-5,
               std::string(name) + " backward differs from the CPU's float32 backward of the same 16-bit operands");
    }

    // What tensor cores buy: a 4096 x 4096 x 4096 product, float32 (no TF32) against bfloat16.
    const long long n = 4096;
    Buffers buffers(device);
    float* a = buffers.upload(randomValues(n * n, random));
    float* bmat = buffers.upload(randomValues(n * n, random));
    float* bias = buffers.upload(std::vector<float>(n, 0.0f));
    float *c = buffers.allocate(n * n), *out = buffers.allocate(n * n);
    void* a16 = buffers.allocate(n * n / 2);
    void* b16 = buffers.allocate(n * n / 2);
    distlabCudaToHalf(device, 2, a, a16, n * n, message);
    distlabCudaToHalf(device, 2, bmat, b16, n * n, message);
    const auto time = [&](bool sixteen) {
        distlabCudaSynchronize(device, message);
        const auto begin = std::chrono::steady_clock::now();
        constexpr int kRepeats = 10;
        for (int i = 0; i < kRepeats; ++i)
            sixteen ? distlabCudaDenseForwardHalf(device, 2, a16, b16, bias, c, out, n, n, n, 0, message)
                    : distlabCudaDenseForward(device, a, bmat, bias, c, out, n, n, n, 0, message);
        distlabCudaSynchronize(device, message);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() / kRepeats;
        return 2.0 * double(n) * double(n) * double(n) / seconds * 1e-12;
    };
    time(false);
    time(true);
    const double fp32 = time(false), bf16 = time(true);
    std::printf("  4096^3 product: float32 %.1f TFLOP/s, bfloat16 on tensor cores %.1f TFLOP/s (%.1fx)\n", fp32, bf16, bf16 / fp32);
}

void allocatorCachesAndCounts(DistlabCudaDevice* device) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    DistlabCudaMemoryStats before{}, after{};
    distlabCudaMemory(device, &before);
    void *first = nullptr, *second = nullptr;
    expect(distlabCudaAllocate(device, 1000, &first, message) == 0, message);
    distlabCudaMemory(device, &after);
    expect(after.liveBytes == before.liveBytes + 1024, "a 1000-byte block counts 1024 live bytes (512-byte granules)");
    distlabCudaRelease(device, first);
    DistlabCudaMemoryStats released{}, reused{};
    distlabCudaMemory(device, &released);
    expect(released.cachedBytes >= 1024, "a released block is kept for reuse");
    expect(distlabCudaAllocate(device, 1024, &second, message) == 0, message);
    distlabCudaMemory(device, &reused);
    expect(reused.cachedBytes == released.cachedBytes - 1024, "a request of a cached size takes a cached block (no cudaMalloc)");
    distlabCudaRelease(device, second);
    distlabCudaMemory(device, &after);
    expect(after.liveBytes == before.liveBytes && after.peakBytes >= before.liveBytes + 1024, "live and peak bytes");
}

void aLogicalLimitGivesAClearError(int physical) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    DistlabCudaDevice* small = nullptr;
    if (distlabCudaOpen(7, physical, 1 << 20, &small, message) != 0) {
        expect(false, message);
        return;
    }
    void *a = nullptr, *b = nullptr;
    expect(distlabCudaAllocate(small, 600 * 1024, &a, message) == 0, message);
    const int code = distlabCudaAllocate(small, 600 * 1024, &b, message);
    std::printf("  limit: %s\n", message);
    expect(code == DISTLAB_CUDA_OUT_OF_MEMORY && b == nullptr, "over the logical device's limit: out of memory");
    expect(std::strstr(message, "gpu:7") != nullptr && std::strstr(message, "limit") != nullptr,
           "the message names the device and its limit");
    distlabCudaRelease(small, a);
    expect(distlabCudaAllocate(small, 600 * 1024, &b, message) == 0, "after a release the same request fits");
    distlabCudaClose(small);

    // Past the physical GPU's memory: the message says what was asked for and what is free.
    DistlabCudaDevice* whole = nullptr;
    if (distlabCudaOpen(0, physical, 0, &whole, message) != 0) {
        expect(false, message);
        return;
    }
    void* huge = nullptr;
    const int hugeCode = distlabCudaAllocate(whole, 1ull << 50, &huge, message);
    std::printf("  physical: %s\n", message);
    expect(hugeCode == DISTLAB_CUDA_OUT_OF_MEMORY && std::strstr(message, "free of") != nullptr, "a 1 PiB request: out of memory");
    void* fine = nullptr;
    expect(distlabCudaAllocate(whole, 4096, &fine, message) == 0, "the device still works after an out-of-memory error");
    distlabCudaRelease(whole, fine);
    distlabCudaClose(whole);
}

}  // namespace

int main() {
    const int code = runOnFirstGpu([](DistlabCudaDevice* device) {
        std::mt19937 random(20261124);
        for (int activation = 0; activation < 5; ++activation) {
            denseMatchesTheCpu(device, 37, 29, 23, activation, random);
            denseMatchesTheCpu(device, 256, 784, 256, activation, random);
        }
        denseMatchesTheCpu(device, 1, 5, 1, 2, random);
        optimizersMatchTheCpu(device, random);
        lossesMatchTheCpu(device, random);
        allocatorCachesAndCounts(device);
        sixteenBitsOnTensorCores(device, random);
    });
    if (code != 0) return code;
    aLogicalLimitGivesAClearError(0);
    std::printf("%s: %d failure(s) with the memory limits\n", failures == 0 ? "PASS" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}
