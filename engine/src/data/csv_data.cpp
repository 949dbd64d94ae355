// CSV data: comma-separated numbers, one sample per line; a first line with any non-numeric field
// is a header. One column (label_column) holds the class label or the regression target.
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "data/data_sources.hpp"
#include "distlab/files/input_file.hpp"

namespace distlab::data {
namespace {

constexpr std::int64_t kMaxInferredClasses = std::int64_t{1} << 20;

enum class NumberStatus { Ok, NotNumber, NotFinite, OutOfRange };

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

NumberStatus parseNumber(std::string_view field, double& out) {
    if (!field.empty() && field.front() == '+') {
        field.remove_prefix(1);  // from_chars rejects a leading '+'
        if (!field.empty() && (field.front() == '+' || field.front() == '-')) return NumberStatus::NotNumber;
    }
    if (field.empty()) return NumberStatus::NotNumber;
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(field.data(), end, out);
    if (ec == std::errc::invalid_argument || ptr != end) return NumberStatus::NotNumber;
    if (ec == std::errc::result_out_of_range) return NumberStatus::OutOfRange;
    if (!std::isfinite(out)) return NumberStatus::NotFinite;
    if (std::abs(out) > std::numeric_limits<float>::max()) return NumberStatus::OutOfRange;
    return NumberStatus::Ok;
}

std::string quoted(std::string_view text) {
    constexpr std::size_t kMax = 40;
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "\"" + std::string(...).
    std::string out(1, '"');
    for (const char c : text.substr(0, kMax)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte != 0x7f) {
            out.push_back(c);
        } else {  // control characters would be invisible in the message
            const char hex[] = "0123456789abcdef";
            out.append({'\\', 'x', hex[byte >> 4], hex[byte & 15]});
        }
    }
    if (text.size() > kMax) out.append("...");
    out.push_back('"');
    return out;
}

/// How labels are read: regression targets, class ids below `classes`, or (classes == 0)
/// class ids whose count is inferred from the largest.
struct LabelRule {
    bool regression = false;
    std::int64_t classes = 0;
};

class CsvParser {
public:
    CsvParser(std::string name, std::int64_t labelColumn, std::int64_t requiredColumns, std::string requiredFrom, LabelRule rule)
        : m_name(std::move(name)),
          m_labelColumn(labelColumn),
          m_columns(requiredColumns),
          m_requiredFrom(std::move(requiredFrom)),
          m_rule(rule) {}

    Dataset parse(std::string_view text);
    std::int64_t columns() const { return m_columns; }
    std::int64_t maxLabel() const { return m_maxLabel; }

private:
    [[noreturn]] void fail(std::int64_t line, std::int64_t column, const std::string& what) const {
        throw InputError(m_name + ": line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what);
    }
    void setColumns(std::int64_t count, std::int64_t line);
    void parseRow(std::int64_t line, Dataset& out);

    std::string m_name;
    std::int64_t m_labelColumn;
    std::int64_t m_columns;
    std::string m_requiredFrom;  ///< the file whose column count this one must match
    LabelRule m_rule;
    std::int64_t m_resolvedLabel = -1;
    std::int64_t m_maxLabel = -1;
    std::vector<std::string_view> m_fields;
};

void CsvParser::setColumns(std::int64_t count, std::int64_t line) {
    if (m_columns > 0 && count != m_columns) {
        throw InputError(m_name + ": line " + std::to_string(line) + ": " + std::to_string(count) + " columns, but " + m_requiredFrom +
                         " has " + std::to_string(m_columns));
    }
    if (count < 2) {
        throw InputError(m_name + ": line " + std::to_string(line) + ": " + std::to_string(count) +
                         " column; need at least 2 (features and a label)");
    }
    m_columns = count;
    m_resolvedLabel = m_labelColumn < 0 ? count + m_labelColumn : m_labelColumn;
    if (m_resolvedLabel < 0 || m_resolvedLabel >= count) {
        throw InputError("data.label_column: " + std::to_string(m_labelColumn) + " is out of range for the " + std::to_string(count) +
                         " columns of " + m_name + " (line " + std::to_string(line) + ")");
    }
}

void CsvParser::parseRow(std::int64_t line, Dataset& out) {
    const auto count = static_cast<std::int64_t>(m_fields.size());
    if (count != m_columns) {
        const std::string counts = " (" + std::to_string(count) + " fields, expected " + std::to_string(m_columns) + ")";
        if (count < m_columns) fail(line, count + 1, "missing field" + counts);
        fail(line, m_columns + 1, "extra field" + counts);
    }
    for (std::int64_t column = 0; column < count; ++column) {
        const std::string_view field = m_fields[static_cast<std::size_t>(column)];
        double value = 0.0;
        if (field.empty()) fail(line, column + 1, "empty field");
        switch (parseNumber(field, value)) {
            case NumberStatus::Ok:
                break;
            case NumberStatus::NotNumber:
                fail(line, column + 1, quoted(field) + " is not a number");
            case NumberStatus::NotFinite:
                fail(line, column + 1, quoted(field) + " is not a finite number");
            case NumberStatus::OutOfRange:
                fail(line, column + 1, quoted(field) + " is out of the range of a float");
        }
        if (column != m_resolvedLabel) {
            out.x.push_back(static_cast<float>(value));
        } else if (m_rule.regression) {
            out.targets.push_back(static_cast<float>(value));
        } else {
            if (value != std::floor(value)) fail(line, column + 1, "label " + quoted(field) + " is not an integer");
            const std::int64_t limit = m_rule.classes > 0 ? m_rule.classes : kMaxInferredClasses;
            if (value < 0 || value >= static_cast<double>(limit)) {
                fail(line, column + 1,
                     "label " + quoted(field) + " is out of range [0, " + std::to_string(limit) + ")" +
                         (m_rule.classes > 0
                              ? " (the model predicts " + std::to_string(m_rule.classes) + (m_rule.classes == 1 ? " class)" : " classes)")
                              : ""));
            }
            const auto label = static_cast<std::int32_t>(value);
            out.labels.push_back(label);
            m_maxLabel = std::max<std::int64_t>(m_maxLabel, label);
        }
    }
    ++out.count;
}

Dataset CsvParser::parse(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
    Dataset out;
    bool firstLine = true;
    std::int64_t lineNumber = 0;
    while (!text.empty()) {
        ++lineNumber;
        // Lines end in LF, CRLF or a lone CR (old Mac files): each counts as one line.
        const std::size_t end = text.find_first_of("\r\n");
        std::string_view line = text.substr(0, end);
        const bool crlf = end != std::string_view::npos && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n';
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + (crlf ? 2 : 1));
        if (trim(line).empty()) continue;  // blank lines (e.g. trailing ones) carry no sample

        m_fields.clear();
        for (std::size_t start = 0;;) {
            const std::size_t comma = line.find(',', start);
            const std::size_t length = comma == std::string_view::npos ? std::string_view::npos : comma - start;
            m_fields.push_back(trim(line.substr(start, length)));
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        if (firstLine) {
            firstLine = false;
            setColumns(static_cast<std::int64_t>(m_fields.size()), lineNumber);
            bool header = false;
            double ignored = 0.0;
            for (const auto field : m_fields) {
                header = header || (!field.empty() && parseNumber(field, ignored) == NumberStatus::NotNumber);
            }
            if (header) continue;
        }
        parseRow(lineNumber, out);
    }
    if (firstLine) throw InputError(m_name + ": the file is empty");
    if (out.count == 0) throw InputError(m_name + ": no data rows (only a header on line 1)");
    out.features = m_columns - 1;
    return out;
}

Dataset readCsvFile(const std::string& field, const std::string& path, const std::string& baseDirectory, CsvParser& parser) {
    const std::string text = InputFile::open(InputKind::Csv, {field, path, resolvePath(path, baseDirectory)}).readAll();
    return parser.parse(text);
}

}  // namespace

DataSplit loadCsv(const DataConfig& config, const DataExpectations& expect, const std::string& baseDirectory) {
    if (config.path.empty()) throw InputError("data.path: required for source csv");
    if (expect.outputs > 1) {
        throw InputError("data.source: a CSV file has one label column, but the model predicts " + std::to_string(expect.outputs) +
                         " outputs per sample; give the last layer 1 unit");
    }
    const LabelRule rule{expect.outputs > 0, expect.classes};
    CsvParser trainParser(config.path, config.labelColumn, 0, "", rule);
    DataSplit split;
    split.train = readCsvFile("data.path", config.path, baseDirectory, trainParser);
    std::int64_t maxLabel = trainParser.maxLabel();
    if (!config.testPath.empty()) {
        CsvParser testParser(config.testPath, config.labelColumn, trainParser.columns(), config.path, rule);
        split.test = readCsvFile("data.test_path", config.testPath, baseDirectory, testParser);
        maxLabel = std::max(maxLabel, testParser.maxLabel());
    } else {
        split.test = emptyLike(split.train);
    }
    for (Dataset* part : {&split.train, &split.test}) {
        part->features = split.train.features;
        part->outputs = rule.regression ? 1 : 0;
        part->classes = rule.regression ? 0 : (expect.classes > 0 ? expect.classes : maxLabel + 1);
    }
    return split;
}

}  // namespace distlab::data
