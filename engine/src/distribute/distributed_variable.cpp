#include "distlab/distribute/distributed_variable.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace distlab {

std::optional<DType> parseLabDType(std::string_view name) {
    const std::optional<DType> dtype = parseDType(name);
    if (dtype && std::find(kLabDTypes.begin(), kLabDTypes.end(), *dtype) != kLabDTypes.end()) return dtype;
    return std::nullopt;
}

namespace {

// The smallest magnitude that rounds to infinity in float32 (FLT_MAX plus half an ulp).
constexpr double kFloat32Overflow = 0x1.ffffffp127;

std::string shortest(double value) {
    std::array<char, 64> buffer{};
    const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
    return std::string(buffer.data(), end);
}

std::string_view upperName(Aggregation aggregation) {
    switch (aggregation) {
        case Aggregation::None:
            return "NONE";
        case Aggregation::Sum:
            return "SUM";
        case Aggregation::Mean:
            return "MEAN";
        case Aggregation::OnlyFirstReplica:
            return "ONLY_FIRST_REPLICA";
    }
    return "NONE";
}

std::string_view argumentNoun(VariableOp op, bool plural) {
    if (op == VariableOp::Assign) return plural ? "values" : "value";
    return plural ? "deltas" : "delta";
}

// "assigned to", "added to", "subtracted from": what the update does to a copy.
std::string_view verbPhrase(VariableOp op) {
    switch (op) {
        case VariableOp::Assign:
            return "assigned to";
        case VariableOp::AssignAdd:
            return "added to";
        case VariableOp::AssignSub:
            return "subtracted from";
        case VariableOp::Read:
            break;
    }
    return "read from";
}

std::string_view kindLabel(VariableKind kind) {
    switch (kind) {
        case VariableKind::Plain:
            return "plain";
        case VariableKind::Mirrored:
            return "mirrored";
        case VariableKind::SyncOnRead:
            return "sync-on-read";
        case VariableKind::Aggregating:
            return "aggregating";
    }
    return "plain";
}

}  // namespace

std::string DistributedVariable::formatValue(double value) const {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    if (std::fabs(value) >= kFloat32Overflow) return shortest(value);  // never a stored value
    if (m_spec.dtype == DType::Int32) return std::to_string(static_cast<std::int64_t>(std::trunc(value)));
    std::array<char, 64> buffer{};
    const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), static_cast<float>(value)).ptr;
    return std::string(buffer.data(), end);
}

double DistributedVariable::applyDType(double value) const {
    if (std::isnan(value)) return value;
    if (m_spec.dtype == DType::Float32) {
        if (std::fabs(value) >= kFloat32Overflow) return std::copysign(std::numeric_limits<double>::infinity(), value);
        return static_cast<double>(static_cast<float>(value));
    }
    // int32: truncate toward zero as TF's cast does, then wrap like int32 arithmetic.
    const double truncated = std::trunc(value);
    if (!(std::fabs(truncated) < 0x1p62)) return 0.0;
    const auto wide = static_cast<std::int64_t>(truncated);
    return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(wide)));
}

std::optional<std::string> DistributedVariable::checkArgument(double value) const {
    if (!std::isfinite(value)) return "the value is not a finite number";
    if (m_spec.dtype == DType::Float32) {
        if (std::fabs(value) >= kFloat32Overflow) return shortest(value) + " is out of range for float32";
        return std::nullopt;
    }
    if (value != std::trunc(value)) return shortest(value) + " cannot be converted to int32 (not a whole number)";
    if (value < -2147483648.0 || value > 2147483647.0) return shortest(value) + " is out of range for int32";
    return std::nullopt;
}

double DistributedVariable::combine(VariableOp op, double copy, double argument) const {
    switch (op) {
        case VariableOp::AssignAdd:
            return applyDType(copy + argument);
        case VariableOp::AssignSub:
            return applyDType(copy - argument);
        default:
            return applyDType(argument);
    }
}

Result<DistributedVariable> DistributedVariable::create(const VariableSpec& spec, VariableStrategy strategy, int replicas) {
    if (replicas < 1 || replicas > kMaxLabReplicas)
        return Error{"replicas must be between 1 and " + std::to_string(kMaxLabReplicas) + " (got " + std::to_string(replicas) + ")"};
    if (strategy == VariableStrategy::OneDevice && replicas != 1)
        return Error{"one_device runs exactly one replica (got " + std::to_string(replicas) + ")"};
    DistributedVariable variable;
    variable.m_spec = spec;
    variable.m_strategy = strategy;
    variable.m_replicas = replicas;
    if (auto problem = variable.checkArgument(spec.initial)) return Error{"initial value: " + *problem};
    const bool onRead = spec.synchronization == Synchronization::OnRead;
    // Keras' add_weight rule, whatever the strategy: on_read variables are never trained.
    if (onRead && spec.trainable.value_or(false))
        return Error{"synchronization on_read is only for non-trainable variables (trainable was set to true)"};
    variable.m_trainable = spec.trainable.value_or(!onRead);

    std::string how;
    if (strategy == VariableStrategy::OneDevice) {
        variable.m_kind = VariableKind::Plain;
        how = "one_device: a plain variable with one copy; synchronization and aggregation have no effect";
    } else {
        if (spec.synchronization == Synchronization::None)
            return Error{"synchronization none is not supported with a distribution strategy (" + std::string(toString(strategy)) + ")"};
        if (spec.aggregation == Aggregation::Mean && spec.dtype == DType::Int32)
            return Error{
                "aggregation mean is not supported for an int32 variable (the mean of integers would lose "
                "precision)"};
        const std::string sync = spec.synchronization == Synchronization::Auto
                                     ? "synchronization auto means on_write"
                                     : "synchronization " + std::string(toString(spec.synchronization));
        if (strategy == VariableStrategy::CentralStorage || strategy == VariableStrategy::ParameterServer) {
            variable.m_kind = VariableKind::Aggregating;
            how = std::string(toString(strategy)) +
                  ": an aggregating variable, a single copy on the parameter device; replica-context updates "
                  "are aggregated with " +
                  std::string(upperName(spec.aggregation)) + " and applied once";
        } else if (onRead) {
            variable.m_kind = VariableKind::SyncOnRead;
            how = "mirrored, " + sync + ": a sync-on-read variable, one copy per replica (" + std::to_string(replicas) +
                  "), each updated locally and aggregated with " + std::string(upperName(spec.aggregation)) +
                  " on a cross-replica read; not trainable";
        } else {
            variable.m_kind = VariableKind::Mirrored;
            how = "mirrored, " + sync + ": a mirrored variable, one copy per replica (" + std::to_string(replicas) +
                  "); replica-context updates are aggregated with " + std::string(upperName(spec.aggregation));
        }
    }
    const bool singleCopy = variable.m_kind == VariableKind::Plain || variable.m_kind == VariableKind::Aggregating;
    const double initial = variable.applyDType(spec.initial);
    variable.m_copies.assign(singleCopy ? 1u : static_cast<std::size_t>(replicas), initial);
    variable.m_creationRule = how + "; every copy starts at " + variable.formatValue(initial);
    return variable;
}

std::string DistributedVariable::prefix(UpdateContext context) const {
    std::string text(kindLabel(m_kind));
    if (m_kind == VariableKind::Aggregating) text += " (" + std::string(toString(m_strategy)) + ")";
    if (m_kind == VariableKind::Plain) text += " (one_device)";
    text += context == UpdateContext::Replica ? ", replica context" : ", cross-replica context";
    if (m_kind != VariableKind::Plain) text += ", aggregation " + std::string(upperName(m_spec.aggregation));
    return text + ": ";
}

VariableOpResult DistributedVariable::success(std::string rule) const {
    VariableOpResult result;
    result.ok = true;
    result.rule = std::move(rule);
    result.replicaValues = m_copies;
    return result;
}

VariableOpResult DistributedVariable::failure(std::string error, std::string rule) const {
    VariableOpResult result;
    result.error = std::move(error);
    result.rule = std::move(rule);
    result.replicaValues = m_copies;
    return result;
}

VariableOpResult DistributedVariable::apply(const VariableOpRequest& request) {
    if (request.op == VariableOp::Read) return request.context == UpdateContext::Replica ? readInReplica() : readCrossReplica();
    if (request.values.empty()) return failure(std::string(toString(request.op)) + " needs a value", "an update needs an argument");
    if (request.context == UpdateContext::CrossReplica) {
        if (request.perReplica && request.values.size() != 1)
            return failure("per-replica values can only be used in replica context",
                           "cross-replica code runs once for the whole strategy and takes one value");
        return updateCrossReplica(request.op, request.values[0]);
    }
    if (request.perReplica) return updateInReplica(request.op, request.values);
    return updateInReplicaSame(request.op, request.values[0]);
}

VariableOpResult DistributedVariable::updateInReplica(VariableOp op, std::span<const double> perReplicaValues) {
    if (perReplicaValues.size() != static_cast<std::size_t>(m_replicas))
        return failure("expected " + std::to_string(m_replicas) + " per-replica values (one per replica), got " +
                           std::to_string(perReplicaValues.size()),
                       "a per-replica value has exactly one component per replica");
    return updateReplicaContext(op, perReplicaValues, true);
}

VariableOpResult DistributedVariable::updateInReplicaSame(VariableOp op, double value) {
    return updateReplicaContext(op, std::span<const double>(&value, 1), false);
}

std::optional<std::string> DistributedVariable::checkArguments(VariableOp op, std::span<const double> args) const {
    if (op == VariableOp::Read) return std::string("read is not an update");
    for (const double value : args)
        if (auto problem = checkArgument(value)) return problem;
    return std::nullopt;
}

std::string DistributedVariable::listValues(std::span<const double> values) const {
    constexpr std::size_t kShown = 8;
    std::string text;
    const std::size_t shown = values.size() > kShown ? kShown : values.size();
    for (std::size_t i = 0; i < shown; ++i) {
        if (i > 0) text += (i + 1 == values.size()) ? " and " : ", ";
        text += formatValue(values[i]);
    }
    if (values.size() > kShown) text += ", ... (" + std::to_string(values.size()) + " values)";
    return text;
}

VariableOpResult DistributedVariable::updateReplicaContext(VariableOp op, std::span<const double> args, bool perReplica) {
    const std::string head = prefix(UpdateContext::Replica);
    if (auto problem = checkArguments(op, args))
        return failure(*problem, head + "the argument must be a " + std::string(dtypeName(m_spec.dtype)) + " value");
    // The arguments become tensors of the variable's dtype first (float32 rounding).
    std::vector<double> converted(args.begin(), args.end());
    for (double& value : converted) value = applyDType(value);
    args = converted;
    const std::string verb(verbPhrase(op));
    std::vector<double> next = m_copies;
    const bool localOnly = m_kind == VariableKind::Plain || m_kind == VariableKind::SyncOnRead ||
                           (m_kind == VariableKind::Mirrored && m_spec.aggregation == Aggregation::None);
    if (localOnly) {
        for (std::size_t i = 0; i < next.size(); ++i) next[i] = combine(op, next[i], args[perReplica ? i : 0]);
        std::string rule = head;
        if (m_kind == VariableKind::Plain) {
            rule += "the " + std::string(argumentNoun(op, false)) + " " + formatValue(args[0]) + " is " + verb +
                    " the one copy; synchronization and aggregation have no effect";
        } else {
            rule += perReplica ? "each replica's " + std::string(argumentNoun(op, false)) + " (" + listValues(args) + ") is " + verb +
                                     " its local copy only"
                               : "the same " + std::string(argumentNoun(op, false)) + " " + formatValue(args[0]) + " is " + verb +
                                     " each replica's local copy only";
            rule += m_kind == VariableKind::SyncOnRead ? "; the aggregation applies when the variable is read in "
                                                         "cross-replica context"
                                                       : ", with no sync, so the copies can diverge";
        }
        m_copies = std::move(next);
        return success(std::move(rule));
    }
    if (m_kind == VariableKind::Aggregating && m_spec.aggregation == Aggregation::None)
        return failure(
            "an aggregating variable needs an aggregation method (sum, mean or only_first_replica) to be "
            "updated in replica context",
            head +
                "the single copy cannot take one update per replica, and NONE names no way to "
                "combine them, so TF rejects the update");
    double reduced = 0.0;
    std::string how;
    if (auto problem = reduceArguments(op, args, perReplica, reduced, how)) return failure(*problem, head + how);
    for (double& copy : next) copy = combine(op, copy, reduced);
    m_copies = std::move(next);
    return success(head + how + " and " + verb + (m_kind == VariableKind::Aggregating ? " the single copy once" : " every copy"));
}

std::optional<std::string> DistributedVariable::reduceArguments(VariableOp op, std::span<const double> args, bool perReplica,
                                                                double& reduced, std::string& how) const {
    const std::string one(argumentNoun(op, false));
    if (perReplica) {
        const std::string many = "the per-replica " + std::string(argumentNoun(op, true)) + " " + listValues(args);
        if (m_spec.aggregation == Aggregation::OnlyFirstReplica) {
            reduced = args[0];
            how = "replica 0's " + one + " " + formatValue(reduced) + " is used (the other replicas' are ignored)";
            return std::nullopt;
        }
        if (m_spec.aggregation == Aggregation::Mean && m_spec.dtype == DType::Int32) {
            how = "the mean of per-replica integers would lose precision, so TF rejects it";
            return std::string("cannot update an int32 variable with aggregation MEAN in replica context");
        }
        double sum = args[0];
        for (std::size_t i = 1; i < args.size(); ++i) sum = applyDType(sum + args[i]);
        if (m_spec.aggregation == Aggregation::Sum) {
            reduced = sum;
            how = many + " are summed to " + formatValue(reduced);
        } else {
            reduced = applyDType(sum / static_cast<double>(args.size()));
            how = many + " are averaged to " + formatValue(reduced);
        }
        return std::nullopt;
    }
    // One and the same (non-distributed) value on every replica: TF's reduce_non_distributed_value.
    const double value = args[0];
    const std::string same = "the same " + one + " " + formatValue(value) + " on every replica";
    reduced = value;
    if (m_spec.aggregation != Aggregation::Sum) {
        how = same + " is used as is" + (m_spec.aggregation == Aggregation::Mean ? " (the mean of identical values)" : " (replica 0's)");
    } else if (value == 0.0) {
        reduced = 0.0;
        how = same + " is not per-replica, but a non-distributed 0 reduces to 0";
    } else if (m_replicas > 1) {
        how = same +
              " is not a per-replica value, and TF does not sum identical non-distributed values, so the "
              "update is rejected (use per-replica values, or MEAN)";
        return std::string("a non-distributed value cannot be reduced with SUM");
    } else {
        how = "one replica: " + same + " is its own sum";
    }
    return std::nullopt;
}

VariableOpResult DistributedVariable::updateCrossReplica(VariableOp op, double value) {
    const std::string head = prefix(UpdateContext::CrossReplica);
    if (auto problem = checkArguments(op, std::span<const double>(&value, 1)))
        return failure(*problem, head + "the argument must be a " + std::string(dtypeName(m_spec.dtype)) + " value");
    value = applyDType(value);
    const std::string shown = formatValue(value);
    const std::string what = "the " + std::string(argumentNoun(op, false)) + " " + shown + " is " + std::string(verbPhrase(op));
    std::vector<double> next = m_copies;
    std::string rule = head;
    if (m_kind != VariableKind::SyncOnRead) {
        for (double& copy : next) copy = combine(op, copy, value);
        if (m_kind == VariableKind::Plain)
            rule += what + " the one copy";
        else if (m_kind == VariableKind::Aggregating)
            rule += what + " the single copy once; aggregation is ignored";
        else
            rule += what + " every copy; aggregation is ignored";
    } else if (op == VariableOp::Assign && m_spec.aggregation == Aggregation::Sum) {
        // Keeps the SUM that a cross-replica read returns equal to the assigned value (TF divides by N).
        const double exact = value / static_cast<double>(m_replicas);
        const double each = applyDType(exact);
        for (double& copy : next) copy = each;
        double total = each;
        for (int i = 1; i < m_replicas; ++i) total = applyDType(total + each);
        rule += "every copy becomes " + shown + " / " + std::to_string(m_replicas) + " = " + formatValue(each);
        if (m_spec.dtype == DType::Int32 && exact != each) rule += " (" + shortest(exact) + " truncated toward zero for int32)";
        rule += ", so the SUM reads back " + formatValue(total);
    } else if (op == VariableOp::Assign) {
        for (double& copy : next) copy = applyDType(value);
        rule += "every copy becomes " + shown;
    } else if (m_spec.aggregation == Aggregation::Sum) {
        return failure(
            "a sync-on-read variable with aggregation SUM does not support " + std::string(toString(op)) + " in cross-replica context",
            head + "changing every copy by " + shown + " would change the SUM by " + shown + " x " + std::to_string(m_replicas) +
                ", so TF rejects it");
    } else {
        for (double& copy : next) copy = combine(op, copy, value);
        rule += what + " every copy";
    }
    m_copies = std::move(next);
    return success(std::move(rule));
}

VariableOpResult DistributedVariable::readInReplica() const {
    VariableOpResult result = success(prefix(UpdateContext::Replica));
    if (m_kind == VariableKind::Aggregating) {
        result.readValues.assign(static_cast<std::size_t>(m_replicas), m_copies[0]);
        result.rule += "every replica reads the single copy (" + formatValue(m_copies[0]) + ")";
    } else if (m_kind == VariableKind::Plain) {
        result.readValues = m_copies;
        result.rule += "the replica reads the one copy (" + formatValue(m_copies[0]) + ")";
    } else {
        result.readValues = m_copies;
        result.rule += "each replica reads its own copy (" + listValues(m_copies) + ")";
        if (m_kind == VariableKind::SyncOnRead) result.rule += "; nothing is aggregated in replica context";
    }
    return result;
}

VariableOpResult DistributedVariable::readCrossReplica() const {
    const std::string head = prefix(UpdateContext::CrossReplica);
    VariableOpResult result = success(head);
    double value = m_copies[0];
    if (m_kind == VariableKind::Plain || m_kind == VariableKind::Aggregating) {
        result.rule += "reads the single copy (" + formatValue(value) + ")";
    } else if (m_kind == VariableKind::Mirrored) {
        result.rule += "reads the primary copy, replica 0's (" + formatValue(value) + ")";
        for (const double copy : m_copies)
            if (copy != value) {
                result.rule +=
                    "; the copies differ (" + listValues(m_copies) + ") because updates with aggregation NONE change only local copies";
                break;
            }
    } else if (m_spec.aggregation == Aggregation::None) {
        return failure("cannot convert aggregation NONE to a reduce op",
                       head + "a cross-replica read must reduce the copies (" + listValues(m_copies) + "), and NONE names no reduction");
    } else if (m_spec.aggregation == Aggregation::OnlyFirstReplica) {
        result.rule += "replica 0's copy (" + formatValue(value) + ") is read; the others are ignored";
    } else {
        double sum = m_copies[0];
        for (std::size_t i = 1; i < m_copies.size(); ++i) sum = applyDType(sum + m_copies[i]);
        const bool mean = m_spec.aggregation == Aggregation::Mean;
        value = mean ? applyDType(sum / static_cast<double>(m_copies.size())) : sum;
        result.rule += "the copies " + listValues(m_copies) + (mean ? " are averaged to " : " are summed to ") + formatValue(value);
    }
    result.readValues.assign(1, value);
    return result;
}

}  // namespace distlab
