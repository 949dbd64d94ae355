#pragma once
// The words of the variable lab: value formatting, kind names, and the plain-words explanations
// (docs/semantics.md §1–3 and §6.7) shown in the intro and as tooltips. GUI thread only.
#include <QString>

#include <string_view>
#include <vector>

#include <distlab/distribute/distributed_variable.hpp>

namespace distlab::ui {

/// The variable lab's red for errors (readable on light and dark backgrounds).
inline constexpr const char* kVarlabErrorColor = "#d9534f";

/// A std::string_view (an engine spelling such as "on_write") as a QString.
inline QString engineText(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
/// One value as `variable`'s dtype prints it ("3" for int32, "2.5" for float32).
QString valueText(const DistributedVariable& variable, double value);
/// "[1, 2.5]": values as `variable`'s dtype prints them.
QString valuesText(const DistributedVariable& variable, const std::vector<double>& values);
/// "plain", "mirrored", "sync-on-read", "aggregating".
QString kindTitle(VariableKind kind);
/// The intro at the top of the panel (rich text, a few sentences for learners).
QString varlabIntroHtml();
/// One-sentence tooltips for each choice of the creation form and the op bar.
QString strategyTip(VariableStrategy strategy);
QString synchronizationTip(Synchronization synchronization);
QString aggregationTip(Aggregation aggregation);
QString contextTip(UpdateContext context);
/// The request in words for the log: "replica context · assign_add, per-replica [1, 2]",
/// "replica context · assign_add, the same 1 on every replica", "cross-replica context · read".
QString requestText(const VariableOpRequest& request);
/// What a cross-replica read of this kind of variable returns, in a few words ("SUM of the copies").
QString readSourceText(const DistributedVariable& variable);

}  // namespace distlab::ui
