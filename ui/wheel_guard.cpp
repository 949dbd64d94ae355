#include "wheel_guard.hpp"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>

namespace distlab::ui {

namespace {

/// The value control `widget` is or belongs to (a spin box's line edit belongs to its spin box).
QWidget* valueControlOf(QObject* object) {
    for (auto* widget = qobject_cast<QWidget*>(object); widget != nullptr && !widget->isWindow(); widget = widget->parentWidget()) {
        if (qobject_cast<QAbstractSpinBox*>(widget) != nullptr || qobject_cast<QComboBox*>(widget) != nullptr ||
            qobject_cast<QAbstractSlider*>(widget) != nullptr)
            return widget;
    }
    return nullptr;
}

/// True when `control` sits in a scrolling panel (a scroll bar is a slider of its own: not counted).
bool insideScrollArea(const QWidget* control) {
    for (const QWidget* parent = control->parentWidget(); parent != nullptr && !parent->isWindow(); parent = parent->parentWidget()) {
        if (const auto* area = qobject_cast<const QAbstractScrollArea*>(parent); area != nullptr)
            return area->viewport()->isAncestorOf(control);
    }
    return false;
}

}  // namespace

void WheelGuard::install(QObject* owner) { qApp->installEventFilter(new WheelGuard(owner)); }

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    const QEvent::Type type = event->type();
    if (type != QEvent::Wheel && type != QEvent::Show) return false;
    QWidget* control = valueControlOf(watched);
    if (control == nullptr || !insideScrollArea(control)) return false;
    if (type == QEvent::Show) {
        // WheelFocus (spin and combo boxes' default) would focus the control on the first turn
        // (before any filter sees the turn), which would then change it: focus only by click or
        // Tab. On Show, not on Polish: a control can be polished (a size hint asked) before it
        // is placed in its scroll area.
        auto* shown = static_cast<QWidget*>(watched);
        if ((shown->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus) shown->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (control->hasFocus()) return false;
    // Not handled here and not accepted: QApplication passes the wheel up to the scroll area.
    event->ignore();
    return true;
}

}  // namespace distlab::ui
