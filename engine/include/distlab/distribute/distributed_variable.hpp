#pragma once
// TensorFlow's distributed-variable rules (docs/semantics.md §1–3 and §6.7):
// one variable, its per-replica copies, and updates applied one at a time in replica or
// cross-replica context. A rejected update returns TF's error meaning and leaves the copies
// unchanged. Used by the variable-lab script runner and, later, the GUI's variable panel.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/tensor/dtype.hpp"

namespace distlab {

enum class VariableStrategy { OneDevice, Mirrored, CentralStorage, ParameterServer };
enum class Synchronization { Auto, None, OnWrite, OnRead };
enum class Aggregation { None, Sum, Mean, OnlyFirstReplica };
/// plain (one_device), mirrored (on_write), sync_on_read (on_read), aggregating (one copy on a
/// parameter device: central_storage and parameter_server).
enum class VariableKind { Plain, Mirrored, SyncOnRead, Aggregating };
enum class UpdateContext { Replica, CrossReplica };
enum class VariableOp { Assign, AssignAdd, AssignSub, Read };

namespace detail {
// Names indexed by the enum's value, in declaration order.
inline constexpr std::array<std::string_view, 4> kStrategyNames{"one_device", "mirrored", "central_storage", "parameter_server"};
inline constexpr std::array<std::string_view, 4> kSynchronizationNames{"auto", "none", "on_write", "on_read"};
inline constexpr std::array<std::string_view, 4> kAggregationNames{"none", "sum", "mean", "only_first_replica"};
inline constexpr std::array<std::string_view, 4> kKindNames{"plain", "mirrored", "sync_on_read", "aggregating"};
inline constexpr std::array<std::string_view, 2> kContextNames{"replica", "cross_replica"};
inline constexpr std::array<std::string_view, 4> kOpNames{"assign", "assign_add", "assign_sub", "read"};

template <typename Enum, std::size_t N>
constexpr std::optional<Enum> lookupName(const std::array<std::string_view, N>& names, std::string_view name) {
    for (std::size_t i = 0; i < N; ++i)
        if (names[i] == name) return static_cast<Enum>(i);
    return std::nullopt;
}
}  // namespace detail

/// Script/GUI spellings ("one_device", "on_write", "only_first_replica", "assign_add",
/// "cross_replica", ...). The parse functions return nullopt for an unknown name. Any thread.
constexpr std::string_view toString(VariableStrategy v) { return detail::kStrategyNames[static_cast<std::size_t>(v)]; }
constexpr std::string_view toString(Synchronization v) { return detail::kSynchronizationNames[static_cast<std::size_t>(v)]; }
constexpr std::string_view toString(Aggregation v) { return detail::kAggregationNames[static_cast<std::size_t>(v)]; }
constexpr std::string_view toString(VariableKind v) { return detail::kKindNames[static_cast<std::size_t>(v)]; }
constexpr std::string_view toString(UpdateContext v) { return detail::kContextNames[static_cast<std::size_t>(v)]; }
constexpr std::string_view toString(VariableOp v) { return detail::kOpNames[static_cast<std::size_t>(v)]; }
constexpr std::optional<VariableStrategy> parseVariableStrategy(std::string_view name) {
    return detail::lookupName<VariableStrategy>(detail::kStrategyNames, name);
}
constexpr std::optional<Synchronization> parseSynchronization(std::string_view name) {
    return detail::lookupName<Synchronization>(detail::kSynchronizationNames, name);
}
constexpr std::optional<Aggregation> parseAggregation(std::string_view name) {
    return detail::lookupName<Aggregation>(detail::kAggregationNames, name);
}
/// The element types a lab variable may have (the project's DType; 16-bit floats are not offered).
inline constexpr std::array<DType, 2> kLabDTypes{DType::Float32, DType::Int32};
/// A lab dtype by name ("float32", "int32"); nullopt for any other name.
std::optional<DType> parseLabDType(std::string_view name);
constexpr std::optional<UpdateContext> parseUpdateContext(std::string_view name) {
    return detail::lookupName<UpdateContext>(detail::kContextNames, name);
}
constexpr std::optional<VariableOp> parseVariableOp(std::string_view name) {
    return detail::lookupName<VariableOp>(detail::kOpNames, name);
}

/// The most replicas a lab variable may have (keeps a hostile script from exhausting memory).
inline constexpr int kMaxLabReplicas = 1024;

/// What a variable is created with (tf.Variable's arguments).
struct VariableSpec {
    std::string name = "v";
    Synchronization synchronization = Synchronization::Auto;
    Aggregation aggregation = Aggregation::None;
    DType dtype = DType::Float32;
    double initial = 0.0;
    std::optional<bool> trainable;  ///< unset: TF's default (trainable unless on_read)
};

/// One update or read, as the GUI panel or a script line asks for it.
struct VariableOpRequest {
    UpdateContext context = UpdateContext::CrossReplica;
    VariableOp op = VariableOp::Read;
    /// Replica context: one value per replica (per-replica tensors) when perReplica is true, else
    /// values[0] is one and the same value on every replica (docs/semantics.md §2's non-distributed case).
    /// Cross-replica context: values[0]. Ignored for reads.
    std::vector<double> values;
    bool perReplica = false;
};

/// The outcome of one operation.
struct VariableOpResult {
    bool ok = false;
    std::string error;                  ///< TF's meaning of the rejection; empty when ok
    std::string rule;                   ///< plain words: which rule applied and what it did
    std::vector<double> replicaValues;  ///< every copy after the op (unchanged on failure)
    /// Reads only: one value for a cross-replica read, one per replica for a replica-context read.
    std::vector<double> readValues;
};

class DistributedVariable {
public:
    /// Creates a variable under `strategy` with `replicas` replicas in sync, applying docs/semantics.md §1
    /// (none synchronization, mean with int32 and trainable on_read are rejected; one_device needs
    /// replicas == 1 and makes a plain variable). Any thread; does not block.
    static Result<DistributedVariable> create(const VariableSpec& spec, VariableStrategy strategy, int replicas);

    /// Applies one update or read (dispatches to the functions below). Not thread-safe.
    VariableOpResult apply(const VariableOpRequest& request);
    /// Replica context, per-replica arguments (values.size() must equal replicas()).
    VariableOpResult updateInReplica(VariableOp op, std::span<const double> perReplicaValues);
    /// Replica context, one and the same value on every replica (a non-distributed value).
    VariableOpResult updateInReplicaSame(VariableOp op, double value);
    /// Cross-replica context (outside the step, e.g. the GUI's "set value" button).
    VariableOpResult updateCrossReplica(VariableOp op, double value);
    /// Replica context: each replica reads its own copy (readValues has one entry per replica).
    VariableOpResult readInReplica() const;
    /// Cross-replica context: the value TF returns for the whole variable (readValues has one).
    VariableOpResult readCrossReplica() const;

    const VariableSpec& spec() const { return m_spec; }
    VariableStrategy strategy() const { return m_strategy; }
    VariableKind kind() const { return m_kind; }
    int replicas() const { return m_replicas; }  ///< replicas in sync (not the number of copies)
    bool trainable() const { return m_trainable; }
    /// One copy per replica; a single copy for plain and aggregating variables.
    const std::vector<double>& copies() const { return m_copies; }
    /// Plain words: what creation made of the spec (kind, copies, initial value).
    const std::string& creationRule() const { return m_creationRule; }
    /// Formats a value the way this variable's dtype prints it ("3" for int32, "2.5" for float32).
    std::string formatValue(double value) const;

private:
    DistributedVariable() = default;
    VariableOpResult updateReplicaContext(VariableOp op, std::span<const double> args, bool perReplica);
    std::optional<std::string> reduceArguments(VariableOp op, std::span<const double> args, bool perReplica, double& reduced,
                                               std::string& how) const;
    std::optional<std::string> checkArguments(VariableOp op, std::span<const double> args) const;
    std::optional<std::string> checkArgument(double value) const;
    double combine(VariableOp op, double copy, double argument) const;
    std::string listValues(std::span<const double> values) const;
    double applyDType(double value) const;
    VariableOpResult success(std::string rule) const;
    VariableOpResult failure(std::string error, std::string rule) const;
    std::string prefix(UpdateContext context) const;

    VariableSpec m_spec;
    VariableStrategy m_strategy = VariableStrategy::OneDevice;
    VariableKind m_kind = VariableKind::Plain;
    int m_replicas = 1;
    bool m_trainable = true;
    std::vector<double> m_copies;
    std::string m_creationRule;
};

}  // namespace distlab
