#pragma once
// The variable-lab script (docs/interfaces.md §10): a strategy, replicas,
// variables and ops, run one op at a time on DistributedVariable; the output is JSON text.
#include <string>
#include <string_view>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/distribute/distributed_variable.hpp"

namespace distlab {

/// One script line: which variable, and the update or read to apply to it.
struct VarlabOp {
    std::string var;
    VariableOpRequest request;
};

/// A parsed, validated script (every op names a declared variable; values has one entry per replica).
struct VarlabScript {
    VariableStrategy strategy = VariableStrategy::Mirrored;
    int replicas = 2;
    std::vector<VariableSpec> variables;
    std::vector<VarlabOp> ops;
};

/// Parses a script; an Error names fileName and the JSON path ("ops[2].values") or the byte offset
/// of a syntax error. Unknown keys are rejected. Any thread; does not block.
Result<VarlabScript> parseVarlabScript(std::string_view scriptJson, const std::string& fileName);

/// Runs a parsed script and returns the output JSON text ({"variables": [...], "results": [...]},
/// each result with an extra "rule" in plain words). Rejected ops are results, not errors. Any thread.
std::string runVarlabScript(const VarlabScript& script);

/// Parses and runs a script: the output JSON text, or an Error when the script is malformed.
Result<std::string> runVarlabScript(std::string_view scriptJson, const std::string& fileName);

}  // namespace distlab
