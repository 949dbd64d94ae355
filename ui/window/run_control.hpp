#pragma once
// The window's run control: Play, Pause, Step and Reset, the speed (steps per second, No limit) and
// the learning rate in the toolbar; the set-up dock's edits, applied once the typing pauses (or at
// once for a deliberate action) without ever throwing trained steps away unasked; and the status
// bar's line about the run (and, with View ▸ Diagnostics, the GUI's frame times). GUI thread.
#include <QObject>
#include <QString>
#include <QTimer>

#include <vector>

#include <distlab/config/run_config.hpp>
#include <distlab/session/session_observer.hpp>

class QAction;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QStatusBar;
class QToolBar;

namespace distlab::ui {

class MainWindow;

class RunControl : public QObject {
    Q_OBJECT

public:
    /// After the window's set-up dock exists: it follows the dock's edits.
    explicit RunControl(MainWindow& window);

    QAction* playAction() const { return m_play; }
    QAction* pauseAction() const { return m_pause; }
    QAction* stepAction() const { return m_step; }
    QAction* resetAction() const { return m_reset; }
    /// The toolbar's "No limit" toggle (checked: the speed slider at its right end).
    QAction* noLimitAction() const { return m_noLimit; }
    /// View ▸ Diagnostics: shows the GUI's frame times in the status bar (checked).
    QAction* diagnosticsAction() const { return m_diagnostics; }
    QSlider& speedSlider() const { return *m_speed; }
    /// Adds the run's controls to `bar`: Play to Reset, the speed, the learning rate.
    void addToToolBar(QToolBar* bar);
    /// Adds the run's line and the frame times to `bar`.
    void addToStatusBar(QStatusBar* bar);

    /// Starts `config` as the current run (replacing any), paused unless `play`.
    void startRun(const RunConfig& config, bool play);
    /// Shows `config` in the set-up as what runs: no pending edits, problem or note.
    void showInSetup(const RunConfig& config);
    /// Applies pending set-up edits now (they otherwise apply after a short pause in typing).
    void applySetupNow();
    /// The set-up was changed from outside the dock (the Servers tab's "use parameter servers").
    void setupEdited();
    /// No set-up edit applies any more (the window closes).
    void stopApplying() { m_applyTimer.stop(); }
    /// The pace and the run's length beside the speed slider ("20 steps/s · 2,000 steps ≈ 1:40").
    QString speedText() const;
    QString statusText() const;
    void updateStatus();

private:
    void buildSpeedControls(QToolBar* bar);
    void onStateChanged(SessionState state);
    void onRunReplaced();
    void onLearningRate(double rate);
    void onSpeedSlider(int position);
    /// Applies the set-up's edits: at once unless a run is training; then `ask` asks to start a
    /// new run (a deliberate action: Play, Step, Compare, Save), otherwise the note says what waits.
    void applySetup(bool ask);
    void startNewRunWithEdits();
    void updateSpeedText();
    void playClicked();
    void resetClicked();

    MainWindow& m_window;
    QAction* m_play;
    QAction* m_pause;
    QAction* m_step;
    QAction* m_reset;
    QAction* m_diagnostics;
    QAction* m_noLimit = nullptr;
    QSlider* m_speed = nullptr;
    QLabel* m_speedLabel = nullptr;
    int m_pacedPosition = 0;  // the slider's last position below "no limit"
    QDoubleSpinBox* m_learningRate = nullptr;
    std::vector<QAction*> m_sessionOnly;  // the pace and the learning rate: hidden for a cluster run
    QLabel* m_statusLabel = nullptr;
    QLabel* m_tickLabel = nullptr;  // the GUI's frame times, shown with View ▸ Diagnostics
    int m_statusCountdown = 0;
    QTimer m_applyTimer;
    bool m_setupEdited = false;  // edits not yet looked at (the timer is no longer active in its own timeout)
};

}  // namespace distlab::ui
