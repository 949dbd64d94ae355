#pragma once
// Plain-words explanations of every control (the concepts of docs/semantics.md §4–9 for learners):
// what it does, when to use it, what it costs. The Explain dock shows the one of the control under
// the mouse or with the focus. GUI thread only.
#include <QString>

class QWidget;

namespace distlab::ui {

struct Explanation {
    QString title;
    QString body;  ///< rich text (a few paragraphs)
    bool valid() const { return !title.isEmpty(); }
};

/// The explanation registered under `key` (e.g. "strategy.cross_device_ops.ring"); invalid if none.
Explanation explanationFor(const QString& key);
/// Tags a control with an explanation key and gives it the explanation's title as tooltip.
void setExplainKey(QWidget* widget, const QString& key);
/// The key of `widget` or of its nearest tagged ancestor; empty if none.
QString explainKeyOf(const QWidget* widget);

}  // namespace distlab::ui
