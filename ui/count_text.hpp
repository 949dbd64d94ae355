#pragma once
// Counts written as a person writes them: "1 micro-step", "4 micro-steps", never "1 micro-steps"
// or "4 micro-step(s)". English only (the app ships no translations). GUI thread.
#include <QString>

class QSpinBox;

namespace distlab::ui {

/// `count` and its noun in the right number, the count in the locale's digits ("1,000 steps").
QString countText(qint64 count, const QString& singular, const QString& plural);
/// The noun alone, in the right number for `count` ("replica" or "replicas").
QString countNoun(qint64 count, const QString& singular, const QString& plural);
/// Keeps `box`'s suffix in the right number for its value (" micro-step" at 1, " micro-steps" above).
void setCountSuffix(QSpinBox& box, const QString& singular, const QString& plural);

}  // namespace distlab::ui
