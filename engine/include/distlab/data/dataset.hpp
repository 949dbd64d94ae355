#pragma once
// In-memory data sets: features as a row-major float matrix, targets as class ids or floats.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/files/input_file.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab {

struct Dataset {
    std::int64_t count = 0;            ///< number of samples
    std::int64_t features = 0;         ///< values per sample
    std::int64_t classes = 0;          ///< > 0: classification with labels in [0, classes)
    std::int64_t outputs = 0;          ///< > 0: regression with `outputs` float targets per sample
    std::vector<float> x;              ///< [count, features]
    std::vector<std::int32_t> labels;  ///< [count] when classes > 0
    std::vector<float> targets;        ///< [count, outputs] when outputs > 0

    bool isClassification() const { return classes > 0; }
    bool empty() const { return count == 0; }
};

struct DataSplit {
    Dataset train;
    Dataset test;  ///< may be empty (no test data)
};

/// What the model needs of the data: class labels in [0, classes) for softmax cross-entropy,
/// or `outputs` float targets per sample for MSE (classes == 0). Both 0: take what the data holds.
struct DataExpectations {
    std::int64_t classes = 0;
    std::int64_t outputs = 0;
};

/// Loads or generates the data a run config describes and checks it against what the model
/// expects. Relative paths resolve against baseDirectory. Blocks (file I/O); callable from any
/// thread. Errors name the file and the line, column or byte offset, or the config field.
Result<DataSplit> loadData(const DataConfig& config, const DataExpectations& expect, std::uint64_t seed, const std::string& baseDirectory);

/// The files loadData reads for `config` (none for synthetic and random data), each with the field
/// that names it and, for a relative path, where it resolves against baseDirectory. Lets the CLI
/// refuse an output that would overwrite its training data. Any thread; does not block.
std::vector<InputName> dataFiles(const DataConfig& config, const std::string& baseDirectory);

}  // namespace distlab
