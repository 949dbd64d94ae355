// loadData(): dispatches to one loader per source and turns their InputErrors into Error values.
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>

#include "data/data_sources.hpp"

namespace distlab {
namespace data {

std::string resolvePath(const std::string& path, const std::string& baseDirectory) {
    const std::filesystem::path p(path);
    if (p.is_absolute() || baseDirectory.empty()) return path;
    return (std::filesystem::path(baseDirectory) / p).string();
}

Dataset emptyLike(const Dataset& like) {
    Dataset out;
    out.features = like.features;
    out.classes = like.classes;
    out.outputs = like.outputs;
    return out;
}

DataSplit shuffleAndSplit(const Dataset& all, std::int64_t trainCount, Rng& rng) {
    std::vector<std::int64_t> order(static_cast<std::size_t>(all.count));
    for (std::int64_t i = 0; i < all.count; ++i) order[static_cast<std::size_t>(i)] = i;
    for (std::int64_t i = all.count - 1; i > 0; --i) {
        const auto j = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)));
        std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
    }
    auto take = [&](std::int64_t begin, std::int64_t end) {
        Dataset part = emptyLike(all);
        part.count = end - begin;
        const auto f = static_cast<std::size_t>(all.features);
        const auto o = static_cast<std::size_t>(all.outputs);
        part.x.resize(static_cast<std::size_t>(part.count) * f);
        if (all.classes > 0) part.labels.resize(static_cast<std::size_t>(part.count));
        if (all.outputs > 0) part.targets.resize(static_cast<std::size_t>(part.count) * o);
        for (std::int64_t row = begin; row < end; ++row) {
            const auto dst = static_cast<std::size_t>(row - begin);
            const auto src = static_cast<std::size_t>(order[static_cast<std::size_t>(row)]);
            std::memcpy(part.x.data() + dst * f, all.x.data() + src * f, f * sizeof(float));
            if (all.classes > 0) part.labels[dst] = all.labels[src];
            if (all.outputs > 0) std::memcpy(part.targets.data() + dst * o, all.targets.data() + src * o, o * sizeof(float));
        }
        return part;
    };
    return DataSplit{take(0, trainCount), take(trainCount, all.count)};
}

void requireRange(const char* field, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi) {
        throw InputError(std::string(field) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " +
                         std::to_string(value) + ")");
    }
}

}  // namespace data

std::vector<InputName> dataFiles(const DataConfig& config, const std::string& baseDirectory) {
    std::vector<std::pair<const char*, const std::string*>> named;
    if (config.source == DataSource::Csv) named = {{"data.path", &config.path}, {"data.test_path", &config.testPath}};
    if (config.source == DataSource::Idx)
        named = {{"data.images", &config.images},
                 {"data.labels", &config.labels},
                 {"data.test_images", &config.testImages},
                 {"data.test_labels", &config.testLabels}};
    std::vector<InputName> files;
    for (const auto& [field, path] : named)
        if (!path->empty()) files.push_back({field, *path, data::resolvePath(*path, baseDirectory)});
    if (config.source == DataSource::FashionMnist)
        for (const char* name : data::kFashionMnistFiles)
            files.push_back({"data.source", std::string(data::kFashionMnistDirectory) + "/" + name, {}});
    return files;
}

Result<DataSplit> loadData(const DataConfig& config, const DataExpectations& expect, std::uint64_t seed, const std::string& baseDirectory) {
    if (expect.classes < 0 || expect.outputs < 0 || (expect.classes > 0 && expect.outputs > 0)) {
        return Error{"model: expects both " + std::to_string(expect.classes) + " classes and " + std::to_string(expect.outputs) +
                     " regression outputs; it must be one or the other"};
    }
    try {
        return captureErrors([&]() -> DataSplit {
            switch (config.source) {
                case DataSource::Synthetic:
                    return data::makeSynthetic(config, expect, seed);
                case DataSource::Random:
                    return data::makeRandom(config, expect, seed);
                case DataSource::Csv:
                    return data::loadCsv(config, expect, baseDirectory);
                case DataSource::Idx:
                    return data::loadIdx(config, expect, baseDirectory);
                case DataSource::FashionMnist:
                    return data::loadFashionMnist(expect, data::kFashionMnistDirectory);
            }
            throw InputError("data.source: unknown source");
        });
    } catch (const std::bad_alloc&) {
        // A header may announce more data than memory holds; that is bad input, not a crash.
        return Error{"data: not enough memory to hold the data set"};
    } catch (const std::length_error&) {
        return Error{"data: the data set is too large to hold in memory"};
    } catch (const std::filesystem::filesystem_error& e) {
        return Error{std::string("data: ") + e.what()};
    }
}

}  // namespace distlab
