#pragma once
// A saved run (docs/interfaces.md §6.1): a checkpoint (weights, optimizer slots, step, data
// position, run config) and the run's curves and facts, in one safetensors file. It resumes as a
// checkpoint does and loads as a weights file does (both ignore the curves), so one file both keeps
// a run to look at later and lets it go on training. Written atomically; read with every check.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

/// A table of numbers: named columns, row-major values (NaN where a value is unknown).
struct RecordTable {
    std::vector<std::string> columns;
    std::vector<double> values;
    std::size_t rows() const { return columns.empty() ? 0 : values.size() / columns.size(); }
    double at(std::size_t row, std::size_t column) const { return values[row * columns.size() + column]; }
    bool operator==(const RecordTable&) const = default;
};

/// What a saved run keeps besides its checkpoint.
struct RunRecord {
    /// The run config as JSON (docs/interfaces.md §1.11); empty: the trainer's own.
    std::string configJson;
    /// Curves and tables by name ("train_loss", "metrics"): letters, digits and '_' only.
    std::map<std::string, RecordTable> tables;
    /// Short facts by name ("label", "saved_at", "samples_per_second"), same names as tables.
    std::map<std::string, std::string> facts;
};

/// A saved run as read back.
struct SavedRun {
    std::string configJson;  ///< the run config stored in it
    std::int64_t step = 0;   ///< updates done when it was saved
    RunRecord record;        ///< its tables and facts (record.configJson == configJson)
};

/// Most tables and facts one saved run may hold (refused up front when saving and reading).
inline constexpr std::size_t kMaxRecordTables = 64;
inline constexpr std::size_t kMaxRecordColumns = 64;

/// Writes the trainer's checkpoint and `record` to `path` atomically. Errors: a bad table or fact
/// name, a table whose values do not fill its columns, too many tables or columns; or the write's
/// own errors. Not while a step runs (call it between steps).
Status saveRun(Trainer& trainer, const RunRecord& record, const std::string& path);
/// Reads and checks a saved run: a DistLab checkpoint that also carries the saved-run format, its
/// tables F64 matrices whose column names (in the metadata) match their width. Errors name the file
/// and the part (`run.distlab-run: history/train_loss: 5 columns named, the tensor has 6`); `field`
/// names the file when it cannot be read at all. Resume it into a trainer with resumeCheckpoint.
Result<SavedRun> readSavedRun(const std::string& path, const std::string& field = "run");

}  // namespace distlab
