#include "collectives_sizes.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace distlab::cli {

namespace {

void printRow(const CollectivesOptions& options, const char* algorithm, const AllReduceMeasurement& row) {
    if (options.json) {
        nlohmann::ordered_json out{{"collective", "all_reduce"},  {"backend", options.backend},   {"algorithm", algorithm},
                                   {"op", opName(options.op)},    {"replicas", options.replicas}, {"bytes", row.bytes},
                                   {"elements", row.elements},    {"iters", options.iters},       {"time_us", row.timeUs},
                                   {"algbw_gbps", row.algbwGbps}, {"busbw_gbps", row.busbwGbps},  {"wrong", row.wrong}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("  %-24s %12lld %11lld %11.2f %11.3f %11.3f %6lld\n", algorithm, row.bytes, row.elements, row.timeUs, row.algbwGbps,
                    row.busbwGbps, row.wrong);
    }
    std::fflush(stdout);  // a row as soon as it is measured: a sweep to 1 GiB takes a while
}

}  // namespace

const char* opName(ReduceOp op) { return op == ReduceOp::Mean ? "mean" : "sum"; }

void printHeader(const CollectivesOptions& options) {
    if (options.json) return;
    const int n = options.replicas;
    const char* what =
        options.backend == "gloo" ? (n == 1 ? "process" : "processes") : (n == 1 ? "replica (thread)" : "replicas (threads)");
    std::printf("# all_reduce (%s), backend %s, %d %s, %lld iterations after %lld warm-up\n", opName(options.op), options.backend.c_str(),
                n, what, options.iters, options.warmup);
    std::printf("# %-24s %12s %11s %11s %11s %11s %6s\n", "algorithm", "bytes", "elements", "time_us", "algbw_gbps", "busbw_gbps", "wrong");
}

long long measureSizes(const CollectivesOptions& options, const char* algorithm, bool print,
                       const std::function<AllReduceMeasurement(long long elements)>& measure) {
    long long wrong = 0;
    for (long long bytes = options.minBytes; bytes <= options.maxBytes; bytes *= 2) {
        const AllReduceMeasurement row = measure(bytes / 4);
        wrong += row.wrong;
        if (print) printRow(options, algorithm, row);
        if (bytes > options.maxBytes / 2) break;  // the next doubling would pass max (or overflow)
    }
    return wrong;
}

}  // namespace distlab::cli
