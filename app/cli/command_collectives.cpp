// `distlab-cli collectives`: measures the all-reduce the way nccl-tests does. Sizes double from
// --min-bytes to --max-bytes (collectives_sizes.hpp); each is measured by the engine's
// measureAllReduce (comm/all_reduce_benchmark.hpp: warm-up, timed iterations, the result checked
// against the exact one), which the study's step-time model fits too. The replicas are threads of
// this process (inprocess) or processes joined in a Gloo group (gloo, collectives_gloo.hpp).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_options.hpp"
#include "collectives_gloo.hpp"
#include "collectives_sizes.hpp"
#include "commands.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/config/run_config_json.hpp"
#include "distlab/tensor/aligned_allocator.hpp"
#include "run_setup.hpp"

namespace distlab::cli {
namespace {

constexpr long long kMaxTotalBytes = 4LL << 30;  // every replica's buffer together

/// The command line as given (checked by the validators); `resolve` turns it into Options.
struct Arguments {
    /// An empty algorithm is the backend's default: ring in process, auto with gloo.
    std::string backend = "inprocess", algorithm, op = "sum", minBytes = "1K", maxBytes = "16M";
    int replicas = 2;
    long long iters = 20, warmup = 5;
    bool json = false, memcpy = false;
    GlooRankRole role;  ///< the hidden options of a rank process
};

using Options = CollectivesOptions;

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
        nlohmann::ordered_json out{{"collective", "memcpy"},         {"threads", threadCount}, {"bytes", elements * 4},
                                   {"iters", options.iters},         {"time_us", timeUs},      {"copy_gbps", copyGbps},
                                   {"read_write_gbps", 2 * copyGbps}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("# memcpy %d thread%s x %lld bytes: %.2f us, %.2f GB/s copied (%.2f GB/s read + written)\n", threadCount,
                    threadCount == 1 ? "" : "s", static_cast<long long>(elements) * 4, timeUs, copyGbps, 2 * copyGbps);
    }
}

Result<Options> resolve(const Arguments& args) {
    Options options;
    options.backend = args.backend;
    if (args.backend == "gloo") {
        if (!args.algorithm.empty() && args.algorithm != "auto" && args.algorithm != "ring")
            return Error{"--algorithm " + args.algorithm + ": the gloo backend takes auto (the default) or ring, as a run's communication"};
        options.glooRing = args.algorithm == "ring";
    } else if (args.algorithm == "auto") {
        return Error{
            "--algorithm auto: only for --backend gloo (threads take ring, tree, hierarchical_copy, reduction_to_one_device or all)"};
    }
    if (args.role.rank > 0 && (args.backend != "gloo" || args.role.rank >= args.replicas))
        return Error{"--rank-process: only for the ranks 1 to N-1 of --backend gloo"};
    if (args.algorithm == "all") {
        options.algorithms = {CrossDeviceOps::ReductionToOneDevice, CrossDeviceOps::HierarchicalCopy, CrossDeviceOps::Ring,
                              CrossDeviceOps::Tree};
    } else {
        CrossDeviceOps algorithm{};
        fromString(args.algorithm.empty() ? std::string("ring") : args.algorithm, algorithm);  // the validator admitted only known names
        options.algorithms = {algorithm};
    }
    options.replicas = args.replicas;
    options.minBytes = *parseBytes(args.minBytes);
    options.maxBytes = *parseBytes(args.maxBytes);
    options.iters = args.iters;
    options.warmup = args.warmup;
    options.op = args.op == "mean" ? ReduceOp::Mean : ReduceOp::Sum;
    options.json = args.json;
    options.memcpy = args.memcpy;
    if (options.minBytes > options.maxBytes)
        return Error{"--min-bytes " + std::to_string(options.minBytes) + " is larger than --max-bytes " + std::to_string(options.maxBytes)};
    if (options.maxBytes > kMaxTotalBytes / options.replicas)
        return Error{"--max-bytes " + std::to_string(options.maxBytes) + " x " + std::to_string(options.replicas) +
                     " replicas exceeds the 4 GiB this command allocates at most"};
    return options;
}

CLI::Validator byteCount() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            const auto bytes = parseBytes(text);
            return bytes && *bytes >= 4 ? std::string() : "expected a byte count >= 4 (K, M, G suffixes allowed) (got \"" + text + "\")";
        },
        "", "bytes");
}

// Every algorithm over threads of this process: rank r is a thread with buffers[r].
long long measureInProcess(const Options& options) {
    std::vector<AlignedVector<float>> buffers(static_cast<std::size_t>(options.replicas));
    for (auto& buffer : buffers) buffer.resize(static_cast<std::size_t>(options.maxBytes / 4));
    long long wrong = 0;
    for (CrossDeviceOps algorithm : options.algorithms) {
        InProcessGroup group(options.replicas, algorithm);
        wrong += measureSizes(options, configName(algorithm), true, [&](long long elements) {
            return measureAllReduce(group, buffers, elements, options.op, options.warmup, options.iters);
        });
    }
    return wrong;
}

int runCollectives(const Arguments& args) {
    auto resolved = resolve(args);
    if (!resolved) return inputError("collectives: " + resolved.error().message);
    const Options& options = *resolved;
    const bool rankZero = args.role.rank == 0;  // the command the user started; it alone prints

    if (rankZero) printHeader(options);
    const Result<long long> wrong =
        options.backend == "gloo" ? measureGloo(options, args.role) : Result<long long>(measureInProcess(options));
    if (!wrong) {
        std::fprintf(stderr, "error: collectives: %s\n", wrong.error().message.c_str());
        return 1;
    }
    if (!rankZero) return 0;  // rank 0 reports every rank's wrong elements
    if (options.memcpy) {
        printMemcpy(1, options.maxBytes, options);
        if (options.replicas > 1) printMemcpy(options.replicas, options.maxBytes, options);
    }
    if (*wrong > 0) {
        std::fprintf(stderr, "error: collectives: %lld elements differ from the expected result\n", *wrong);
        return 1;
    }
    return 0;
}

}  // namespace

void addCollectivesCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<Arguments>();
    CLI::App* command = app.add_subcommand("collectives",
                                           "Measure the all-reduce the way nccl-tests does: sizes double from --min-bytes to --max-bytes, "
                                           "each timed after warm-up and checked against the exact result.");
    // Only backends that run are offered: NCCL comes with multi-process training on GPUs.
    command
        ->add_option("--backend", args->backend,
                     "one of: inprocess, gloo (the default inprocess: replicas are threads of this process; gloo: processes of "
                     "this program joined by Gloo over loopback TCP)")
        ->type_name("NAME")
        ->check(oneOf({"inprocess", "gloo"}));
    command
        ->add_option("--algorithm", args->algorithm,
                     "ring (default), tree, hierarchical_copy, reduction_to_one_device or all; gloo: auto (default: the direct "
                     "exchange between 2 processes and for small buffers, else Gloo's ring) or ring (Gloo's ring always), as a run's "
                     "communication")
        ->type_name("ALGO")
        ->check(oneOf({"ring", "tree", "hierarchical_copy", "reduction_to_one_device", "all", "auto"}));
    command->add_option("--replicas", args->replicas, "replicas (threads, or processes with gloo), 1 to 64 (default 2)")
        ->type_name("N")
        ->check(integerIn(1, 64));
    command->add_option("--min-bytes", args->minBytes, "smallest buffer per replica (default 1K)")->type_name("B")->check(byteCount());
    command->add_option("--max-bytes", args->maxBytes, "largest buffer per replica (default 16M)")->type_name("B")->check(byteCount());
    command->add_option("--iters", args->iters, "timed iterations per size (default 20)")->type_name("K")->check(integerIn(1, 10'000'000));
    command->add_option("--warmup-iters", args->warmup, "untimed iterations per size (default 5)")
        ->type_name("W")
        ->check(integerIn(0, 10'000'000));
    command->add_option("--op", args->op, "sum (default) or mean")->type_name("OP")->check(oneOf({"sum", "mean"}));
    command->add_flag("--memcpy", args->memcpy, "also measure this machine's memcpy bandwidth, for comparison");
    command->add_flag("--json", args->json, "one JSON object per line instead of a table");
    // Hidden: how rank 0 starts the other ranks of --backend gloo (collectives_gloo.hpp).
    command->add_option("--rank-process", args->role.rank)->group("")->check(integerIn(1, 63));
    command->add_option("--store-port", args->role.storePort)->group("")->check(integerIn(1, 65535));
    command->add_option("--parent-pid", args->role.parent)->group("")->check(integerIn(1, 1LL << 30));
    command->callback([args, &exitCode] { exitCode = runCollectives(*args); });
}

}  // namespace distlab::cli
