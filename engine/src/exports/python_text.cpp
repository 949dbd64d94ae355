#include "exports/python_text.hpp"

#include <charconv>
#include <stdexcept>

#include "distlab/files/file_names.hpp"

namespace distlab {
namespace {

/// `value` as a Python literal, indented for reading: JSON's strings and numbers are valid Python
/// literals already; true, false and null are not.
void appendPython(std::string& out, const nlohmann::ordered_json& value, int indent) {
    const std::string pad(static_cast<std::size_t>(indent + 4), ' ');
    const std::string closing(static_cast<std::size_t>(indent), ' ');
    if (value.is_object() || value.is_array()) {
        const bool object = value.is_object();
        if (value.empty()) {
            out += object ? "{}" : "[]";
            return;
        }
        out += object ? "{\n" : "[\n";
        for (auto it = value.begin(); it != value.end(); ++it) {
            out += pad;
            if (object) out += nlohmann::json(it.key()).dump() + ": ";
            appendPython(out, *it, indent + 4);
            out += ",\n";
        }
        out += closing + (object ? "}" : "]");
    } else if (value.is_boolean()) {
        out += value.get<bool>() ? "True" : "False";
    } else if (value.is_null()) {
        out += "None";
    } else {
        out += value.dump();
    }
}

}  // namespace

const char* const kReadSafeTensorsPython = R"PY(NUMPY_DTYPES = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64}


def read_safetensors(path):
    """Tensors by name as numpy arrays: an 8-byte little-endian header length, a JSON header, the data."""
    with open(path, "rb") as f:
        blob = f.read()
    (header_length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + header_length])
    data = blob[8 + header_length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = np.dtype(NUMPY_DTYPES[entry["dtype"]]).newbyteorder("<")
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(entry["shape"])
    return tensors
)PY";

std::string pythonLiteral(const nlohmann::ordered_json& value) {
    std::string out;
    appendPython(out, value, 0);
    return out;
}

// JSON's string escapes (\", \\, \n, \uXXXX) are Python's too.
std::string pythonString(const std::string& text) { return nlohmann::json(text).dump(); }

std::string pythonFloat(double value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    std::string text(buffer, result.ptr);
    // The shortest form that reads back as the same double; Python needs a point or an exponent to
    // make it a float rather than an int.
    if (text.find_first_of(".en") == std::string::npos) text += ".0";
    return text;
}

std::string fillTemplate(std::string_view pattern, std::initializer_list<std::pair<std::string_view, std::string>> values) {
    std::string out;
    out.reserve(pattern.size());
    std::size_t at = 0;
    while (true) {
        const std::size_t open = pattern.find("${", at);
        if (open == std::string_view::npos) break;
        const std::size_t close = pattern.find('}', open);
        if (close == std::string_view::npos) throw std::logic_error("fillTemplate: an unclosed ${");
        const std::string_view key = pattern.substr(open + 2, close - open - 2);
        const auto* found = values.begin();
        while (found != values.end() && found->first != key) ++found;
        if (found == values.end()) throw std::logic_error("fillTemplate: no value for ${" + std::string(key) + "}");
        out.append(pattern.substr(at, open - at));
        out += found->second;
        at = close + 1;
    }
    out.append(pattern.substr(at));
    return out;
}

std::string exportFileStem(const std::string& runName) {
    std::string stem = runName;
    for (char& c : stem) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!plain) c = '_';
    }
    return stem.empty() ? std::string("run") : stem;
}

}  // namespace distlab
