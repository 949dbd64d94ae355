#pragma once
// Keeps the mouse wheel from editing a value by accident. In a panel that scrolls (the Run set-up
// dock), a wheel turned to scroll lands on whatever spin box, combo box or slider passes under
// the pointer, and Qt's default lets it change that value (and so rebuild the run) without a
// click. Qt's usual fix, applied to every such control inside a scroll area of the application:
// the wheel no longer gives them focus, and one without focus passes the wheel to the panel
// (which scrolls). A control the person clicked or tabbed into still takes the wheel. GUI thread.
#include <QObject>

namespace distlab::ui {

class WheelGuard : public QObject {
    Q_OBJECT

public:
    /// Watches every widget of the application from now on, until `owner` is destroyed.
    static void install(QObject* owner);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QObject* parent) : QObject(parent) {}
};

}  // namespace distlab::ui
