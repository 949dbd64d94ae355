#pragma once
// Internal: one loader per data source. Each throws InputError with a message naming the file and
// line/column/byte offset or the config field; loadData() turns it into an Error value.
#include <cstdint>
#include <string>

#include "distlab/core/rng.hpp"
#include "distlab/data/dataset.hpp"

namespace distlab::data {

/// Debian's dataset-fashion-mnist installs its gzip IDX files here.
inline constexpr const char* kFashionMnistDirectory = "/usr/share/datasets/fashion-mnist";
/// Its four files: training images and labels, test images and labels.
inline constexpr const char* kFashionMnistFiles[] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                                     "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};

DataSplit makeSynthetic(const DataConfig& config, const DataExpectations& expect, std::uint64_t seed);
DataSplit makeRandom(const DataConfig& config, const DataExpectations& expect, std::uint64_t seed);
DataSplit loadCsv(const DataConfig& config, const DataExpectations& expect, const std::string& baseDirectory);
DataSplit loadIdx(const DataConfig& config, const DataExpectations& expect, const std::string& baseDirectory);
/// The four Fashion-MNIST files from `directory` (kFashionMnistDirectory in production).
DataSplit loadFashionMnist(const DataExpectations& expect, const std::string& directory);

/// `path` itself when absolute or when baseDirectory is empty, else baseDirectory/path.
std::string resolvePath(const std::string& path, const std::string& baseDirectory);

/// Shuffles `all` with rng and splits it: the first trainCount shuffled samples train, the rest test.
DataSplit shuffleAndSplit(const Dataset& all, std::int64_t trainCount, Rng& rng);

/// An empty data set with the same shape description (features, classes, outputs) as `like`.
Dataset emptyLike(const Dataset& like);

/// Throws InputError("<field>: must be in [lo, hi] (got value)") unless lo <= value <= hi.
void requireRange(const char* field, std::int64_t value, std::int64_t lo, std::int64_t hi);

}  // namespace distlab::data
