#include "distlab/formats/saved_run.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <span>

#include "distlab/formats/checkpoint.hpp"
#include "distlab/formats/safetensors.hpp"

namespace distlab {
namespace {

constexpr const char* kSavedRunKey = "saved_run";
constexpr const char* kSavedRunFormat = "distlab-run-1";
constexpr std::string_view kFactPrefix = "run/";
constexpr std::string_view kColumnsSuffix = "/columns";

bool isPlainName(const std::string& name) {
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::string tensorName(const std::string& table) { return std::string(kSavedRunTensorPrefix) + table; }

std::string joinColumns(const std::vector<std::string>& columns) {
    std::string joined;
    for (const std::string& column : columns) joined += (joined.empty() ? "" : ",") + column;
    return joined;
}

std::vector<std::string> splitColumns(const std::string& joined) {
    std::vector<std::string> columns;
    std::size_t begin = 0;
    while (begin <= joined.size()) {
        const std::size_t comma = std::min(joined.find(',', begin), joined.size());
        columns.push_back(joined.substr(begin, comma - begin));
        begin = comma + 1;
    }
    return columns;
}

Status checkRecord(const RunRecord& record) {
    if (record.tables.size() > kMaxRecordTables || record.facts.size() > kMaxRecordTables)
        return Error{"a saved run holds at most " + std::to_string(kMaxRecordTables) + " tables and as many facts"};
    for (const auto& [name, table] : record.tables) {
        if (!isPlainName(name)) return Error{"table name \"" + name + "\": use letters, digits and '_' (at most 64)"};
        if (table.columns.empty() || table.columns.size() > kMaxRecordColumns)
            return Error{"table " + name + ": 1 to " + std::to_string(kMaxRecordColumns) + " columns"};
        for (const std::string& column : table.columns)
            if (!isPlainName(column)) return Error{"table " + name + ": column name \"" + column + "\" is not a plain name"};
        if (table.values.size() % table.columns.size() != 0)
            return Error{"table " + name + ": " + std::to_string(table.values.size()) + " values do not fill rows of " +
                         std::to_string(table.columns.size()) + " columns"};
    }
    for (const auto& [name, value] : record.facts)
        if (!isPlainName(name)) return Error{"fact name \"" + name + "\": use letters, digits and '_' (at most 64)"};
    return Ok{};
}

}  // namespace

Status saveRun(Trainer& trainer, const RunRecord& record, const std::string& path) {
    if (Status valid = checkRecord(record); !valid) return Error{path + ": " + valid.error().message};
    SafeTensorsFile file = checkpointContents(trainer);
    file.metadata[kSavedRunKey] = kSavedRunFormat;
    if (!record.configJson.empty()) file.metadata["config"] = record.configJson;
    for (const auto& [name, table] : record.tables) {
        const auto rows = static_cast<std::int64_t>(table.rows());
        file.tensors[tensorName(name)] =
            makeSafeTensor<double>({rows, static_cast<std::int64_t>(table.columns.size())}, std::span<const double>(table.values));
        file.metadata[tensorName(name) + std::string(kColumnsSuffix)] = joinColumns(table.columns);
    }
    for (const auto& [name, value] : record.facts) file.metadata[std::string(kFactPrefix) + name] = value;
    return writeSafeTensors(path, file);
}

Result<SavedRun> readSavedRun(const std::string& path, const std::string& field) {
    auto file = readSafeTensors(path, field);
    if (!file) return file.error();
    const auto format = file->metadata.find(kSavedRunKey);
    if (format == file->metadata.end())
        return Error{path +
                     ": __metadata__.saved_run: missing (not a saved run: open a weights file with Load weights, a "
                     "checkpoint with --resume)"};
    if (format->second != kSavedRunFormat)
        return Error{path + ": __metadata__.saved_run: \"" + format->second + "\" is not a format this version reads (" + kSavedRunFormat +
                     ")"};
    SavedRun run;
    const auto config = file->metadata.find("config");
    if (config == file->metadata.end()) return Error{path + ": __metadata__.config: missing"};
    run.configJson = config->second;
    run.record.configJson = config->second;
    const auto step = file->metadata.find("step");
    const char* end = step == file->metadata.end() ? nullptr : step->second.data() + step->second.size();
    if (step == file->metadata.end() || std::from_chars(step->second.data(), end, run.step).ptr != end || run.step < 0)
        return Error{path + ": __metadata__.step: missing or not a non-negative integer"};

    for (const auto& [name, tensor] : file->tensors) {
        if (!name.starts_with(kSavedRunTensorPrefix)) continue;
        const std::string table = name.substr(kSavedRunTensorPrefix.size());
        if (!isPlainName(table)) return Error{path + ": " + name + ": not a plain table name"};
        if (tensor.dtype != SafeDType::F64 || tensor.shape.size() != 2)
            return Error{path + ": " + name + ": a saved run's table is a 2-D F64 tensor"};
        const auto columns = file->metadata.find(name + std::string(kColumnsSuffix));
        if (columns == file->metadata.end()) return Error{path + ": __metadata__." + name + "/columns: missing"};
        RecordTable values;
        values.columns = splitColumns(columns->second);
        if (static_cast<std::int64_t>(values.columns.size()) != tensor.shape[1])
            return Error{path + ": " + name + ": " + std::to_string(values.columns.size()) + " columns named, the tensor has " +
                         std::to_string(tensor.shape[1])};
        values.values.resize(tensor.bytes.size() / sizeof(double));
        std::memcpy(values.values.data(), tensor.bytes.data(), tensor.bytes.size());
        run.record.tables.emplace(table, std::move(values));
    }
    for (const auto& [key, value] : file->metadata)
        if (key.starts_with(kFactPrefix)) run.record.facts.emplace(key.substr(kFactPrefix.size()), value);
    if (Status valid = checkRecord(run.record); !valid) return Error{path + ": " + valid.error().message};
    return run;
}

}  // namespace distlab
