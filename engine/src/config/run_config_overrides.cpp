// "--set key.path=value" overrides, applied to the JSON document before it is parsed.
#include <distlab/config/run_config_json.hpp>

#include "config/run_config_json_reader.hpp"

namespace distlab {

using namespace run_config_detail;

namespace {

// One step of a key path: an object key, then any number of array indices ("layers[1]").
struct PathStep {
    std::string key;
    std::vector<std::size_t> indices;
};

// Parses "a.b[1].c"; false when malformed (empty key, unclosed bracket, non-digit index).
bool parseKeyPath(std::string_view text, std::vector<PathStep>& steps) {
    std::size_t position = 0;
    while (true) {
        PathStep step;
        while (position < text.size() && text[position] != '.' && text[position] != '[') {
            if (text[position] == ']') return false;
            step.key += text[position++];
        }
        if (step.key.empty()) return false;
        while (position < text.size() && text[position] == '[') {
            const std::size_t close = text.find(']', position);
            if (close == std::string_view::npos) return false;
            const std::string_view digits = text.substr(position + 1, close - position - 1);
            if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
                return false;
            }
            step.indices.push_back(static_cast<std::size_t>(std::stoul(std::string(digits))));
            position = close + 1;
        }
        steps.push_back(std::move(step));
        if (position == text.size()) return true;
        if (text[position] != '.') return false;
        ++position;
    }
}

// The value as JSON if it parses ("0.1", "true", "[\"cpu:0\"]"), else the raw text as a string.
Json overrideValue(const std::string& text) {
    try {
        return parseJsonDocument(text, "--set");
    } catch (const InputError&) {
        return Json(text);
    }
}

void applyOne(Json& document, const std::string& setting, const std::string& file) {
    const std::string where = "--set " + quotedJson(setting);
    const std::size_t equals = setting.find('=');
    if (equals == std::string::npos ||
        !setAtKeyPath(document, std::string_view(setting).substr(0, equals), overrideValue(setting.substr(equals + 1)), file, where)) {
        fail(file, where, "expected key.path=value, e.g. optimizer.learning_rate=0.1 or model.layers[1].units=64");
    }
}

}  // namespace

bool run_config_detail::setAtKeyPath(Json& document, std::string_view keyPath, Json value, const std::string& file,
                                     const std::string& where) {
    std::vector<PathStep> steps;
    if (!parseKeyPath(keyPath, steps)) return false;
    Json* current = &document;
    std::string path;
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const PathStep& step = steps[s];
        if (current->is_null()) *current = Json::object();  // created by this setting
        if (!current->is_object()) {
            fail(file, where, (path.empty() ? std::string("the document") : path) + " is " + describeType(*current) + ", not an object");
        }
        // devices and replicas are two spellings of one setting: the setting replaces the other one.
        if (path == "strategy" && step.indices.empty() && s + 1 == steps.size()) {
            if (step.key == "replicas") current->erase("devices");
            if (step.key == "devices") current->erase("replicas");
        }
        current = &(*current)[step.key];
        path = childPath(path, step.key);
        for (std::size_t index : step.indices) {
            if (current->is_null()) *current = Json::array();
            if (!current->is_array()) fail(file, where, path + " is " + describeType(*current) + ", not an array");
            if (index > current->size()) {
                fail(file, where,
                     path + " has " + std::to_string(current->size()) + " elements; index " + std::to_string(index) + " is past the end");
            }
            if (index == current->size()) current->push_back(nullptr);  // appends one element
            current = &(*current)[index];
            path = indexPath(path, index);
        }
    }
    *current = std::move(value);
    return true;
}

Result<std::string> applyOverrides(std::string_view jsonText, const std::vector<std::string>& overrides, const std::string& fileName) {
    // Without overrides the text stays byte for byte, so syntax errors keep their positions.
    if (overrides.empty()) return std::string(jsonText);
    return captureErrors([&] {
        Json document = parseJsonDocument(jsonText, fileName);
        if (!document.is_object()) fail(fileName, "", "must be an object (got " + describeType(document) + ")");
        for (const std::string& setting : overrides) applyOne(document, setting, fileName);
        return dumpJson(document) + "\n";
    });
}

}  // namespace distlab
