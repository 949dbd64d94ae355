#include "count_text.hpp"

#include <QLocale>
#include <QSpinBox>

namespace distlab::ui {

QString countNoun(qint64 count, const QString& singular, const QString& plural) { return count == 1 ? singular : plural; }

QString countText(qint64 count, const QString& singular, const QString& plural) {
    return QLocale().toString(count) + QLatin1Char(' ') + countNoun(count, singular, plural);
}

void setCountSuffix(QSpinBox& box, const QString& singular, const QString& plural) {
    auto update = [&box, singular, plural](int value) { box.setSuffix(QLatin1Char(' ') + countNoun(value, singular, plural)); };
    update(box.value());
    QObject::connect(&box, &QSpinBox::valueChanged, &box, update);
}

}  // namespace distlab::ui
