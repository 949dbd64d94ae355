// `distlab-cli collectives`: measures the all-reduce the way nccl-tests does. Sizes double from
// --min-bytes to --max-bytes; at each size every replica (a thread) runs an untimed warm-up, then
// K timed iterations; a correctness check before and after the timing counts the elements off the
// exact result (the buffers hold small integers, so every algorithm's float sum is exact).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/io/run_config_json.hpp"
#include "distlab/tensor/aligned_allocator.hpp"
#include "run_setup.hpp"

namespace distlab::cli {
namespace {

constexpr const char* kUsage =
    "usage: distlab-cli collectives [--backend inprocess|gloo|nccl] [--algorithm ALGO|all] [--replicas N]\n"
    "                               [--min-bytes B] [--max-bytes B] [--iters K] [--warmup-iters W]\n"
    "                               [--op sum|mean] [--memcpy] [--json]\n"
    "  ALGO: ring (default), tree, hierarchical_copy, reduction_to_one_device. B takes K, M, G suffixes.\n";
constexpr long long kMaxTotalBytes = 4LL << 30;  // every replica's buffer together

struct Options {
    std::vector<CrossDeviceOps> algorithms{CrossDeviceOps::Ring};
    int replicas = 2;
    long long minBytes = 1024, maxBytes = 16LL << 20, iters = 20, warmup = 5;
    ReduceOp op = ReduceOp::Sum;
    bool json = false, memcpy = false;
};

struct Row {
    long long bytes = 0, elements = 0;
    double timeUs = 0, algbw = 0, busbw = 0;
    long long wrong = 0;
};

std::optional<long long> parseBytes(std::string_view text) {
    long long scale = 1;
    if (!text.empty()) {
        const char suffix = static_cast<char>(text.back() | 0x20);
        scale = suffix == 'k' ? 1LL << 10 : suffix == 'm' ? 1LL << 20 : suffix == 'g' ? 1LL << 30 : 1;
        if (scale != 1) text.remove_suffix(1);
    }
    const auto value = parseCount(text);
    if (!value || *value > (1LL << 40) / scale) return std::nullopt;
    return *value * scale;
}

// Rank r's element i: a small integer, so sums of up to thousands of ranks stay exact in float.
float fillValue(int rank, long long i) { return static_cast<float>((i * 7 + rank * 3) % 17 - 8); }

Row measure(InProcessGroup& group, std::vector<AlignedVector<float>>& buffers, long long elements, const Options& options) {
    const int n = group.size();
    std::vector<long long> wrong(static_cast<std::size_t>(n), 0), elapsedNs(static_cast<std::size_t>(n), 0);
    float expected[17];  // element i's result depends on i % 17 only
    for (int k = 0; k < 17; ++k) {
        long long sum = 0;
        for (int r = 0; r < n; ++r) sum += static_cast<long long>(fillValue(r, k));
        expected[k] = options.op == ReduceOp::Mean ? static_cast<float>(sum) / static_cast<float>(n) : static_cast<float>(sum);
    }
    auto rankMain = [&](int rank) {
        Communicator& comm = group.communicator(rank);
        const std::span<float> buffer(buffers[static_cast<std::size_t>(rank)].data(), static_cast<std::size_t>(elements));
        auto checked = [&] {
            for (long long i = 0; i < elements; ++i) buffer[static_cast<std::size_t>(i)] = fillValue(rank, i);
            comm.allReduce(buffer, options.op);
            for (long long i = 0; i < elements; ++i)
                if (buffer[static_cast<std::size_t>(i)] != expected[i % 17]) ++wrong[static_cast<std::size_t>(rank)];
        };
        checked();
        for (long long w = 0; w < options.warmup; ++w) comm.allReduce(buffer, options.op);
        comm.barrier();
        const std::int64_t start = nowNs();
        for (long long k = 0; k < options.iters; ++k) comm.allReduce(buffer, options.op);
        elapsedNs[static_cast<std::size_t>(rank)] = nowNs() - start;
        checked();
    };
    std::vector<std::thread> threads;
    for (int r = 1; r < n; ++r) threads.emplace_back(rankMain, r);
    rankMain(0);
    for (std::thread& thread : threads) thread.join();

    Row row;
    row.elements = elements;
    row.bytes = elements * static_cast<long long>(sizeof(float));
    row.timeUs = static_cast<double>(*std::max_element(elapsedNs.begin(), elapsedNs.end())) / 1e3 / static_cast<double>(options.iters);
    row.algbw = row.timeUs > 0 ? static_cast<double>(row.bytes) / (row.timeUs * 1e3) : 0.0;
    row.busbw = row.algbw * 2.0 * (n - 1) / n;
    for (long long w : wrong) row.wrong += w;
    return row;
}

// This machine's copy bandwidth: `threads` threads each memcpy their own `bytes` buffer.
void printMemcpy(int threadCount, long long bytes, const Options& options) {
    const auto elements = static_cast<std::size_t>(bytes / 4);
    std::vector<long long> elapsed(static_cast<std::size_t>(threadCount), 0);
    auto copier = [&](int t) {
        AlignedVector<float> source(elements, 1.0f), target(elements, 0.0f);
        for (long long w = 0; w < options.warmup + 1; ++w) std::memcpy(target.data(), source.data(), elements * 4);
        const std::int64_t start = nowNs();
        for (long long k = 0; k < options.iters; ++k) std::memcpy(target.data(), source.data(), elements * 4);
        elapsed[static_cast<std::size_t>(t)] = nowNs() - start;
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < threadCount; ++t) threads.emplace_back(copier, t);
    for (std::thread& thread : threads) thread.join();
    const double timeUs = static_cast<double>(*std::max_element(elapsed.begin(), elapsed.end())) / 1e3 / static_cast<double>(options.iters);
    const double copyGbps = static_cast<double>(elements * 4) * threadCount / (timeUs * 1e3);
    if (options.json) {
        nlohmann::ordered_json out{{"collective", "memcpy"}, {"threads", threadCount}, {"bytes", elements * 4},
                                   {"iters", options.iters}, {"time_us", timeUs}, {"copy_gbps", copyGbps},
                                   {"read_write_gbps", 2 * copyGbps}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("# memcpy %d thread%s x %lld bytes: %.2f us, %.2f GB/s copied (%.2f GB/s read + written)\n", threadCount,
                    threadCount == 1 ? "" : "s", static_cast<long long>(elements * 4), timeUs, copyGbps, 2 * copyGbps);
    }
}

std::optional<std::string> parse(Arguments args, Options& options) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        const bool hasValue = i + 1 < args.size();
        const std::string_view value = hasValue ? args[i + 1] : std::string_view{};
        auto bad = [&](const std::string& what) { return std::string(arg) + ": " + what + " (got \"" + std::string(value) + "\")"; };
        if (arg == "--json") options.json = true;
        else if (arg == "--memcpy") options.memcpy = true;
        else if (!hasValue) return "unexpected argument (or a missing value) " + std::string(arg);
        else if (++i; arg == "--backend") {
            if (value == "gloo" || value == "nccl")
                return "--backend " + std::string(value) + " is not built into this distlab-cli yet; use --backend inprocess";
            if (value != "inprocess") return bad("expected one of inprocess, gloo, nccl");
        } else if (arg == "--algorithm") {
            CrossDeviceOps algorithm{};
            if (value == "all") options.algorithms = {CrossDeviceOps::ReductionToOneDevice, CrossDeviceOps::HierarchicalCopy,
                                                      CrossDeviceOps::Ring, CrossDeviceOps::Tree};
            else if (value != "nccl" && fromString(value, algorithm)) options.algorithms = {algorithm};
            else return bad("expected one of ring, tree, hierarchical_copy, reduction_to_one_device, all");
        } else if (arg == "--replicas") {
            const auto count = parseCount(value);
            if (!count || *count < 1 || *count > 64) return bad("expected an integer in [1, 64]");
            options.replicas = static_cast<int>(*count);
        } else if (arg == "--min-bytes" || arg == "--max-bytes") {
            const auto bytes = parseBytes(value);
            if (!bytes || *bytes < 4) return bad("expected a byte count >= 4 (K, M, G suffixes allowed)");
            (arg == "--min-bytes" ? options.minBytes : options.maxBytes) = *bytes;
        } else if (arg == "--iters" || arg == "--warmup-iters") {
            const auto count = parseCount(value);
            const long long least = arg == "--iters" ? 1 : 0;
            if (!count || *count < least || *count > 10'000'000) return bad("expected an integer in [" + std::to_string(least) + ", 10000000]");
            (arg == "--iters" ? options.iters : options.warmup) = *count;
        } else if (arg == "--op") {
            if (value == "sum") options.op = ReduceOp::Sum;
            else if (value == "mean") options.op = ReduceOp::Mean;
            else return bad("expected sum or mean");
        } else {
            return "unexpected argument " + std::string(arg);
        }
    }
    if (options.minBytes > options.maxBytes)
        return "--min-bytes " + std::to_string(options.minBytes) + " is larger than --max-bytes " + std::to_string(options.maxBytes);
    if (options.maxBytes > kMaxTotalBytes / options.replicas)
        return "--max-bytes " + std::to_string(options.maxBytes) + " x " + std::to_string(options.replicas) +
               " replicas exceeds the 4 GiB this command allocates at most";
    return std::nullopt;
}

}  // namespace

int runCollectives(Arguments args) {
    for (std::string_view arg : args)
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
    Options options;
    if (auto problem = parse(args, options)) return inputError("collectives: " + *problem + "\n" + kUsage);

    const int n = options.replicas;
    std::vector<AlignedVector<float>> buffers(static_cast<std::size_t>(n));
    for (auto& buffer : buffers) buffer.resize(static_cast<std::size_t>(options.maxBytes / 4));
    const char* opName = options.op == ReduceOp::Sum ? "sum" : "mean";
    if (!options.json) {
        std::printf("# all_reduce (%s), backend inprocess, %d replica%s, %lld iterations after %lld warm-up\n", opName, n,
                    n == 1 ? "" : "s", options.iters, options.warmup);
        std::printf("# %-24s %12s %11s %11s %11s %11s %6s\n", "algorithm", "bytes", "elements", "time_us", "algbw_gbps",
                    "busbw_gbps", "wrong");
    }
    long long wrong = 0;
    for (CrossDeviceOps algorithm : options.algorithms) {
        InProcessGroup group(n, algorithm);
        for (long long bytes = options.minBytes; bytes <= options.maxBytes; bytes *= 2) {
            const Row row = measure(group, buffers, bytes / 4, options);
            wrong += row.wrong;
            if (options.json) {
                nlohmann::ordered_json out{{"collective", "all_reduce"}, {"backend", "inprocess"}, {"algorithm", configName(algorithm)},
                                           {"op", opName}, {"replicas", n}, {"bytes", row.bytes}, {"elements", row.elements},
                                           {"iters", options.iters}, {"time_us", row.timeUs}, {"algbw_gbps", row.algbw},
                                           {"busbw_gbps", row.busbw}, {"wrong", row.wrong}};
                std::printf("%s\n", out.dump().c_str());
            } else {
                std::printf("  %-24s %12lld %11lld %11.2f %11.3f %11.3f %6lld\n", configName(algorithm), row.bytes, row.elements,
                            row.timeUs, row.algbw, row.busbw, row.wrong);
            }
            std::fflush(stdout);
            if (bytes > options.maxBytes / 2) break;  // the next doubling would pass max (or overflow)
        }
    }
    if (options.memcpy) {
        printMemcpy(1, options.maxBytes, options);
        if (n > 1) printMemcpy(n, options.maxBytes, options);
    }
    if (wrong > 0) {
        std::fprintf(stderr, "error: collectives: %lld elements differ from the expected result\n", wrong);
        return 1;
    }
    return 0;
}

}  // namespace distlab::cli
