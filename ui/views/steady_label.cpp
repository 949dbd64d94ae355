#include "views/steady_label.hpp"

#include <QFontMetrics>
#include <QLabel>
#include <QVariant>

namespace distlab::ui {

namespace {
// How many characters the label's fixed width was last measured for (with room to spare).
constexpr char kRoomProperty[] = "distlabSteadyChars";
constexpr int kSpareChars = 8;
}  // namespace

void setSteadyText(QLabel& label, const QString& text) {
    if (label.text() == text) return;
    label.setText(text);
    // Measuring shapes the text: only when it has grown past what the width was measured for.
    const bool fixed = label.minimumWidth() == label.maximumWidth();
    if (fixed && text.size() <= label.property(kRoomProperty).toInt()) return;
    const QFontMetrics metrics = label.fontMetrics();
    const int wanted = metrics.horizontalAdvance(text) + 2 * label.margin() + 4 * metrics.averageCharWidth();
    if (fixed && wanted <= label.maximumWidth()) return;
    label.setFixedSize(wanted + kSpareChars * metrics.averageCharWidth(), label.sizeHint().height());
    label.setProperty(kRoomProperty, static_cast<int>(text.size()) + kSpareChars / 2);
}

}  // namespace distlab::ui
