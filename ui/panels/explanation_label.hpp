#pragma once
// The muted, word-wrapped line that sits under a control and says what it does: one style for
// every panel of the set-up. GUI thread only.
#include <QString>

class QLabel;
class QWidget;

namespace distlab::ui {

/// Gives `label` the explanation style (muted colour, wrapped, a little space below).
void styleAsExplanation(QLabel& label);
/// A new rich-text label in the explanation style.
QLabel* explanationLabel(QWidget* parent);
/// The first paragraph of the explanation registered under `key` (what it does, with its cost).
QString firstParagraph(const QString& key);

}  // namespace distlab::ui
