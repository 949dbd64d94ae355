#include "varlab/varlab_text.hpp"

#include <QCoreApplication>
#include <QStringList>

namespace distlab::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("VariableLab", text); }
}  // namespace

QString valueText(const DistributedVariable& variable, double value) { return QString::fromStdString(variable.formatValue(value)); }

QString valuesText(const DistributedVariable& variable, const std::vector<double>& values) {
    QStringList parts;
    for (const double value : values) parts.append(valueText(variable, value));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString kindTitle(VariableKind kind) {
    switch (kind) {
        case VariableKind::Plain:
            return tr("plain");
        case VariableKind::Mirrored:
            return tr("mirrored");
        case VariableKind::SyncOnRead:
            return tr("sync-on-read");
        case VariableKind::Aggregating:
            return tr("aggregating");
    }
    return tr("plain");
}

QString varlabIntroHtml() {
    return tr(
        "<b>Try TensorFlow's distributed-variable rules by hand.</b> <b>on_write</b> (what <i>auto</i> means "
        "under a strategy) makes a <i>mirrored</i> variable: one copy per replica, kept equal, so an update in "
        "replica context is combined across replicas first. <b>on_read</b> makes a <i>sync-on-read</i> "
        "variable: each replica changes only its own copy, and the copies are combined when the variable is "
        "read in cross-replica context. <b>Aggregation</b> is how to combine: the update's <i>argument</i> "
        "(new value or delta) for on_write, the <i>copies</i> for on_read.");
}

QString strategyTip(VariableStrategy strategy) {
    switch (strategy) {
        case VariableStrategy::OneDevice:
            return tr("One replica on one device: a plain variable; synchronization and aggregation have no effect.");
        case VariableStrategy::Mirrored:
            return tr("One copy of each variable on every replica's device (MirroredStrategy).");
        case VariableStrategy::CentralStorage:
            return tr("A single copy on the parameter device; the replicas compute, updates are applied once.");
        case VariableStrategy::ParameterServer:
            return tr("A single copy on a parameter server; workers send updates that are applied once.");
    }
    return {};
}

QString synchronizationTip(Synchronization synchronization) {
    switch (synchronization) {
        case Synchronization::Auto:
            return tr("auto: on_write under a multi-replica strategy.");
        case Synchronization::None:
            return tr("none: no synchronization at all; rejected under a distribution strategy.");
        case Synchronization::OnWrite:
            return tr("on_write: every update is synchronized, so the copies stay equal (a mirrored variable).");
        case Synchronization::OnRead:
            return tr("on_read: replicas update their own copies; a cross-replica read combines them. Not trainable.");
    }
    return {};
}

QString aggregationTip(Aggregation aggregation) {
    switch (aggregation) {
        case Aggregation::None:
            return tr("none: nothing is combined; on_write copies updated in replica context can diverge.");
        case Aggregation::Sum:
            return tr("sum: the replicas' arguments (or copies) are added up.");
        case Aggregation::Mean:
            return tr("mean: the replicas' arguments (or copies) are averaged.");
        case Aggregation::OnlyFirstReplica:
            return tr("only_first_replica: replica 0's argument (or copy) is used.");
    }
    return {};
}

QString contextTip(UpdateContext context) {
    return context == UpdateContext::Replica ? tr("Replica context: the op runs once on every replica, inside a training step.")
                                             : tr("Cross-replica context: the op runs once for the whole strategy, outside a step.");
}

QString requestText(const VariableOpRequest& request) {
    QString text = request.context == UpdateContext::Replica ? tr("replica context") : tr("cross-replica context");
    text += QStringLiteral(" · ") + engineText(toString(request.op));
    if (request.op == VariableOp::Read) return text;
    QStringList values;
    for (const double value : request.values) values.append(QString::number(value));
    if (request.perReplica) return text + tr(", per-replica [%1]").arg(values.join(QStringLiteral(", ")));
    if (request.context == UpdateContext::Replica) return text + tr(", the same %1 on every replica").arg(values.value(0));
    return text + QStringLiteral(" ") + values.value(0);
}

QString readSourceText(const DistributedVariable& variable) {
    switch (variable.kind()) {
        case VariableKind::Plain:
        case VariableKind::Aggregating:
            return tr("the single copy");
        case VariableKind::Mirrored:
            return tr("replica 0's copy");
        case VariableKind::SyncOnRead:
            break;
    }
    switch (variable.spec().aggregation) {
        case Aggregation::Sum:
            return tr("SUM of the copies");
        case Aggregation::Mean:
            return tr("MEAN of the copies");
        case Aggregation::OnlyFirstReplica:
            return tr("replica 0's copy");
        case Aggregation::None:
            break;
    }
    return tr("no reduction");
}

}  // namespace distlab::ui
