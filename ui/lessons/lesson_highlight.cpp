#include "lessons/lesson_highlight.hpp"

#include <QDockWidget>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QTabWidget>
#include <QToolBox>

namespace distlab::ui {

namespace {
constexpr int kMargin = 4;
const QColor kOutline(0xff, 0x8c, 0x00);
}  // namespace

LessonHighlight::LessonHighlight(QWidget* target) : QWidget(target != nullptr ? target->window() : nullptr), m_target(target) {
    setObjectName(QStringLiteral("lessonHighlight"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    // The target's ancestors move and resize it (splitters, docks, layouts): follow it a few times a second.
    m_follow.setInterval(150);
    connect(&m_follow, &QTimer::timeout, this, &LessonHighlight::follow);
    if (target == nullptr) return;
    reveal(target);
    m_follow.start();
    follow();
}

void LessonHighlight::reveal(QWidget* target) {
    for (QWidget* child = target; child != nullptr; child = child->parentWidget()) {
        QWidget* parent = child->parentWidget();
        if (parent == nullptr) break;
        // A QTabWidget's and a QToolBox's pages sit inside their own containers: look up a little.
        for (QWidget* holder = parent; holder != nullptr && holder != child->window(); holder = holder->parentWidget()) {
            if (auto* tabs = qobject_cast<QTabWidget*>(holder); tabs != nullptr && tabs->indexOf(child) >= 0) {
                tabs->setCurrentWidget(child);
                break;
            }
            if (auto* box = qobject_cast<QToolBox*>(holder); box != nullptr && box->indexOf(child) >= 0) {
                box->setCurrentWidget(child);
                break;
            }
        }
        if (auto* dock = qobject_cast<QDockWidget*>(child); dock != nullptr && !dock->isVisible()) dock->show();
        if (auto* scroll = qobject_cast<QScrollArea*>(parent->parentWidget()); scroll != nullptr) scroll->ensureWidgetVisible(target);
    }
}

void LessonHighlight::follow() {
    if (m_target == nullptr || !m_target->isVisible()) {
        hide();
        return;
    }
    const QRect rect(m_target->mapTo(parentWidget(), QPoint(0, 0)), m_target->size());
    setGeometry(rect.adjusted(-kMargin, -kMargin, kMargin, kMargin));
    raise();
    show();
}

void LessonHighlight::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(kOutline, 3.0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRoundedRect(QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5), 6.0, 6.0);
}

}  // namespace distlab::ui
