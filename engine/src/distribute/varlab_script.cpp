#include "distlab/distribute/varlab_script.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "config/run_config_json_reader.hpp"

namespace distlab {

namespace {

// Not "Json": in the unity batches this file shares a translation unit with files whose Json is
// the ordered kind.
using ScriptJson = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Reads one script, throwing InputError("<file>: <json path>: <problem>") at the first problem.
class ScriptReader {
public:
    explicit ScriptReader(const std::string& fileName) : m_file(fileName) {}

    [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
        throw InputError(m_file + ": " + (path.empty() ? std::string() : path + ": ") + problem);
    }

    void requireObject(const ScriptJson& node, const std::string& path, std::initializer_list<std::string_view> keys) const {
        if (!node.is_object()) fail(path.empty() ? "(top level)" : path, expected("an object", node));
        for (const auto& item : node.items()) {
            bool known = false;
            for (const auto key : keys) known = known || item.key() == key;
            if (!known) fail(join(path, item.key()), "unknown key");
        }
    }

    std::string string(const ScriptJson& node, const std::string& path) const {
        if (!node.is_string()) fail(path, expected("a string", node));
        return node.get<std::string>();
    }

    double number(const ScriptJson& node, const std::string& path) const {
        if (!node.is_number()) fail(path, expected("a number", node));
        const double value = node.get<double>();
        if (!std::isfinite(value)) fail(path, "the number is too large");
        return value;
    }

    std::int64_t integer(const ScriptJson& node, const std::string& path) const {
        if (node.is_number_unsigned()) {
            const auto value = node.get<std::uint64_t>();
            constexpr auto kMax = static_cast<std::uint64_t>(INT64_MAX);
            return value > kMax ? INT64_MAX : static_cast<std::int64_t>(value);
        }
        if (node.is_number_integer()) return node.get<std::int64_t>();
        // A whole number written as a float (2.0, 1e20) is still an integer; the range check follows.
        if (!node.is_number_float()) fail(path, expected("an integer", node));
        const double value = node.get<double>();
        if (value != std::trunc(value)) fail(path, "expected an integer, got " + node.dump());
        return std::fabs(value) < 0x1p62 ? static_cast<std::int64_t>(value) : (value > 0 ? INT64_MAX : INT64_MIN);
    }

    // A name from a fixed list, e.g. "on_write"; the error lists the choices.
    template <typename Enum, typename Parse>
    Enum choice(const ScriptJson& node, const std::string& path, Parse parse, std::string_view choices) const {
        const std::string name = string(node, path);
        if (auto value = parse(name)) return *value;
        fail(path, "unknown value \"" + name + "\" (expected " + std::string(choices) + ")");
    }

    static std::string join(const std::string& path, std::string_view key) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }
    static std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

private:
    static std::string expected(const std::string& what, const ScriptJson& node) {
        return "expected " + what + ", got " + std::string(node.type_name());
    }

    std::string m_file;
};

VariableSpec readVariable(const ScriptReader& reader, const ScriptJson& node, const std::string& path) {
    reader.requireObject(node, path, {"name", "synchronization", "aggregation", "initial", "dtype", "trainable"});
    VariableSpec spec;
    if (!node.contains("name")) reader.fail(path, "missing key \"name\"");
    spec.name = reader.string(node["name"], ScriptReader::join(path, "name"));
    if (spec.name.empty()) reader.fail(ScriptReader::join(path, "name"), "must not be empty");
    if (node.contains("synchronization"))
        spec.synchronization = reader.choice<Synchronization>(node["synchronization"], ScriptReader::join(path, "synchronization"),
                                                              parseSynchronization, "auto, none, on_write or on_read");
    if (node.contains("aggregation"))
        spec.aggregation = reader.choice<Aggregation>(node["aggregation"], ScriptReader::join(path, "aggregation"), parseAggregation,
                                                      "none, sum, mean or only_first_replica");
    if (node.contains("dtype"))
        spec.dtype = reader.choice<DType>(node["dtype"], ScriptReader::join(path, "dtype"), parseLabDType, "float32 or int32");
    if (node.contains("initial")) spec.initial = reader.number(node["initial"], ScriptReader::join(path, "initial"));
    if (node.contains("trainable")) {
        if (!node["trainable"].is_boolean())
            reader.fail(ScriptReader::join(path, "trainable"), "expected a boolean, got " + std::string(node["trainable"].type_name()));
        spec.trainable = node["trainable"].get<bool>();
    }
    return spec;
}

VarlabOp readOp(const ScriptReader& reader, const ScriptJson& node, const std::string& path, int replicas,
                const std::set<std::string>& declared) {
    reader.requireObject(node, path, {"context", "op", "var", "value", "values"});
    for (const char* key : {"context", "op", "var"})
        if (!node.contains(key)) reader.fail(path, "missing key \"" + std::string(key) + "\"");
    VarlabOp op;
    op.request.context =
        reader.choice<UpdateContext>(node["context"], ScriptReader::join(path, "context"), parseUpdateContext, "replica or cross_replica");
    op.request.op =
        reader.choice<VariableOp>(node["op"], ScriptReader::join(path, "op"), parseVariableOp, "assign, assign_add, assign_sub or read");
    op.var = reader.string(node["var"], ScriptReader::join(path, "var"));
    if (declared.count(op.var) == 0)
        reader.fail(ScriptReader::join(path, "var"), "variable \"" + op.var + "\" is not declared in variables");
    const bool hasValue = node.contains("value");
    const bool hasValues = node.contains("values");
    if (op.request.op == VariableOp::Read) {
        if (hasValue || hasValues) reader.fail(path, "read takes no value or values");
        return op;
    }
    if (hasValue == hasValues) reader.fail(path, std::string(toString(op.request.op)) + " needs either value or values");
    if (hasValue) {
        op.request.values.assign(1, reader.number(node["value"], ScriptReader::join(path, "value")));
        return op;
    }
    const std::string valuesPath = ScriptReader::join(path, "values");
    if (op.request.context == UpdateContext::CrossReplica)
        reader.fail(valuesPath, "per-replica values are only allowed in replica context (use value)");
    const ScriptJson& values = node["values"];
    if (!values.is_array()) reader.fail(valuesPath, "expected an array, got " + std::string(values.type_name()));
    if (values.size() != static_cast<std::size_t>(replicas))
        reader.fail(valuesPath, "expected " + std::to_string(replicas) + " values (one per replica), got " + std::to_string(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i)
        op.request.values.push_back(reader.number(values[i], ScriptReader::index(valuesPath, i)));
    op.request.perReplica = true;
    return op;
}

VarlabScript readScript(const ScriptReader& reader, const ScriptJson& root) {
    reader.requireObject(root, "", {"strategy", "replicas", "variables", "ops"});
    VarlabScript script;
    if (root.contains("strategy"))
        script.strategy = reader.choice<VariableStrategy>(root["strategy"], "strategy", parseVariableStrategy,
                                                          "one_device, mirrored, central_storage or parameter_server");
    script.replicas = script.strategy == VariableStrategy::OneDevice ? 1 : 2;
    if (root.contains("replicas")) {
        const std::int64_t replicas = reader.integer(root["replicas"], "replicas");
        if (replicas < 1 || replicas > kMaxLabReplicas)
            reader.fail("replicas", "must be between 1 and " + std::to_string(kMaxLabReplicas) + " (got " + root["replicas"].dump() + ")");
        script.replicas = static_cast<int>(replicas);
    }
    if (script.strategy == VariableStrategy::OneDevice && script.replicas != 1)
        reader.fail("replicas", "one_device runs exactly one replica (got " + std::to_string(script.replicas) + ")");
    std::set<std::string> declared;
    for (const char* key : {"variables", "ops"})
        if (root.contains(key) && !root[key].is_array()) reader.fail(key, "expected an array, got " + std::string(root[key].type_name()));
    if (root.contains("variables")) {
        const ScriptJson& variables = root["variables"];
        for (std::size_t i = 0; i < variables.size(); ++i) {
            const std::string path = ScriptReader::index("variables", i);
            script.variables.push_back(readVariable(reader, variables[i], path));
            if (!declared.insert(script.variables.back().name).second)
                reader.fail(ScriptReader::join(path, "name"), "variable \"" + script.variables.back().name + "\" is declared twice");
        }
    }
    if (root.contains("ops")) {
        const ScriptJson& ops = root["ops"];
        for (std::size_t i = 0; i < ops.size(); ++i)
            script.ops.push_back(readOp(reader, ops[i], ScriptReader::index("ops", i), script.replicas, declared));
    }
    return script;
}

// A value as the variable's dtype prints it: an integer for int32, float32's shortest decimal
// otherwise; a string for a non-finite value, which JSON cannot hold as a number.
OrderedJson jsonValue(const DistributedVariable& variable, double value) {
    if (!std::isfinite(value)) return variable.formatValue(value);
    if (variable.spec().dtype == DType::Int32) return static_cast<std::int64_t>(value);
    const std::string text = variable.formatValue(value);
    double shortestValue = value;
    std::from_chars(text.data(), text.data() + text.size(), shortestValue);
    return shortestValue;
}

OrderedJson jsonValues(const DistributedVariable& variable, const std::vector<double>& values) {
    OrderedJson array = OrderedJson::array();
    for (const double value : values) array.push_back(jsonValue(variable, value));
    return array;
}

std::string dumpEntry(const OrderedJson& entry) { return entry.dump(-1, ' ', false, OrderedJson::error_handler_t::replace); }

// One entry per line, so a learner can read the output and a program can parse it.
void appendArray(std::string& out, const char* key, const std::vector<std::string>& entries, bool last) {
    out += "  \"";
    out += key;
    out += "\": [";
    for (std::size_t i = 0; i < entries.size(); ++i) out += (i == 0 ? "\n    " : ",\n    ") + entries[i];
    out += entries.empty() ? "]" : "\n  ]";
    out += last ? "\n" : ",\n";
}

}  // namespace

Result<VarlabScript> parseVarlabScript(std::string_view scriptJson, const std::string& fileName) {
    return captureErrors([&]() -> VarlabScript {
        const ScriptReader reader(fileName);
        // The config reader's parser: syntax errors by byte, line and column, a key given twice refused.
        const ScriptJson root = run_config_detail::parseJsonDocument(scriptJson, fileName);
        try {
            return readScript(reader, root);
        } catch (const ScriptJson::exception& e) {
            throw InputError(fileName + ": invalid script: " + e.what());  // not expected: every access is checked
        }
    });
}

std::string runVarlabScript(const VarlabScript& script) {
    std::vector<std::optional<DistributedVariable>> variables;
    std::map<std::string, std::size_t> byName;
    std::vector<std::string> creationErrors;
    std::vector<std::string> variableEntries;
    for (const VariableSpec& spec : script.variables) {
        auto created = DistributedVariable::create(spec, script.strategy, script.replicas);
        OrderedJson entry;
        entry["name"] = spec.name;
        entry["ok"] = created.ok();
        if (created.ok()) {
            entry["kind"] = std::string(toString(created->kind()));
            entry["replica_values"] = jsonValues(*created, created->copies());
            entry["rule"] = created->creationRule();
            creationErrors.emplace_back();
            variables.emplace_back(std::move(created.value()));
        } else {
            entry["error"] = created.error().message;
            creationErrors.push_back(created.error().message);
            variables.emplace_back(std::nullopt);
        }
        byName[spec.name] = variables.size() - 1;
        variableEntries.push_back(dumpEntry(entry));
    }
    std::vector<std::string> resultEntries;
    for (const VarlabOp& op : script.ops) {
        OrderedJson entry;
        const auto found = byName.find(op.var);
        if (found == byName.end() || !variables[found->second]) {
            entry["ok"] = false;
            entry["error"] = "variable \"" + op.var + "\" was not created" +
                             (found == byName.end() ? std::string() : ": " + creationErrors[found->second]);
            entry["rule"] = "an op on a variable whose creation was rejected fails too";
            resultEntries.push_back(dumpEntry(entry));
            continue;
        }
        DistributedVariable& variable = *variables[found->second];
        const VariableOpResult result = variable.apply(op.request);
        entry["ok"] = result.ok;
        if (result.ok) {
            entry["replica_values"] = jsonValues(variable, result.replicaValues);
            if (op.request.op == VariableOp::Read) {
                if (op.request.context == UpdateContext::Replica)
                    entry["read"] = jsonValues(variable, result.readValues);
                else
                    entry["read"] = jsonValue(variable, result.readValues.at(0));
            }
        } else {
            entry["error"] = result.error;
        }
        entry["rule"] = result.rule;
        resultEntries.push_back(dumpEntry(entry));
    }
    std::string out = "{\n";
    appendArray(out, "variables", variableEntries, false);
    appendArray(out, "results", resultEntries, true);
    return out + "}";
}

Result<std::string> runVarlabScript(std::string_view scriptJson, const std::string& fileName) {
    auto script = parseVarlabScript(scriptJson, fileName);
    if (!script.ok()) return script.error();
    return runVarlabScript(script.value());
}

}  // namespace distlab
