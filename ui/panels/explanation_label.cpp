#include "panels/explanation_label.hpp"

#include <QLabel>

#include "panels/explanations.hpp"

namespace distlab::ui {

void styleAsExplanation(QLabel& label) {
    label.setWordWrap(true);
    label.setStyleSheet(QStringLiteral("QLabel { color: palette(dark); margin-bottom: 6px; }"));
}

QLabel* explanationLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setTextFormat(Qt::RichText);
    styleAsExplanation(*label);
    return label;
}

QString firstParagraph(const QString& key) {
    const QString body = explanationFor(key).body;
    const qsizetype end = body.indexOf(QLatin1String("</p>"));
    return end < 0 ? body : body.left(end + 4);
}

}  // namespace distlab::ui
