#pragma once
// The "Parameter servers" tab. For a parameter_server run: the topology (servers with their shards,
// workers, pushes and pulls as they happen) with per-worker controls (speed, pause, kill), a "lose
// server" button per server, the async/sync switch, checkpoints to resume from after a lost server,
// and the staleness histogram against its theory. For any other run: what the tab is for and how to
// start one. GUI thread only.
#include <QElapsedTimer>

#include <cstdint>
#include <vector>

#include <distlab/distribute/parameter_server_controls.hpp>

#include "views/live_view.hpp"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace distlab::ui {

class StalenessHistogram;
class TopologyCanvas;
class WorkerControls;

class ParameterServerView : public LiveView {
    Q_OBJECT

public:
    explicit ParameterServerView(SessionController& controller, QWidget* parent = nullptr);

    TopologyCanvas& topology() const { return *m_canvas; }
    WorkerControls& workerControls() const { return *m_workers; }
    StalenessHistogram& histogram() const { return *m_histogram; }
    QComboBox& modeBox() const { return *m_mode; }
    /// The "lose server" button of server `server`, or null.
    QPushButton* loseServerButton(int server) const;
    /// True when the tab shows a parameter-server run (false: the page that explains the tab).
    bool showingRun() const;
    /// Saves a checkpoint of the current run (to a temporary file kept while the app runs) between
    /// its next two steps, without waiting: the text beside the buttons says "Saving…", then the
    /// outcome (checkpointSaved).
    void saveCheckpoint();
    /// Starts the run again from the last checkpoint (paused); false when none was saved or kept.
    bool resumeCheckpoint();
    /// "Resume from checkpoint": enabled while the app keeps a checkpoint of the current run.
    QPushButton* resumeButton() const { return m_resume; }

signals:
    /// A checkpoint asked with saveCheckpoint() was kept (`ok`), or not (the text says why).
    void checkpointSaved(bool ok);
    /// "Compare mirrored, async and sync" was clicked.
    void compareRequested();
    /// The explaining page's "train this model with parameter servers" was clicked.
    void useParameterServersRequested();

protected:
    bool refresh() override;

private:
    QWidget* buildIntroPage();
    QWidget* buildRunPage();
    void buildTopology();
    /// A cluster's worker as its chief streams it: alive unless its task was lost or failed, its
    /// configured speed, the updates that applied its gradients (every gradient the chief takes
    /// is applied, so those count as its pushes too).
    WorkerStatus clusterWorkerStatus(int worker);
    void onStateChanged();
    void updateStalenessText(int liveWorkers, double theory);
    void updateCheckpointText();
    void updateEndedNote();

    QStackedWidget* m_pages;
    QLabel* m_introText;
    QComboBox* m_mode;
    QLabel* m_summary;
    QLabel* m_checkpointText;
    QPushButton* m_resume;
    QPushButton* m_save;
    QWidget* m_serverRow;
    QHBoxLayout* m_serverButtons;
    TopologyCanvas* m_canvas;
    WorkerControls* m_workers;
    StalenessHistogram* m_histogram;
    QLabel* m_stalenessText;
    bool m_topologyReady = false;
    int m_lostServer = -1;
    std::vector<std::int64_t> m_lastApplied;  // per worker, at the last frame: the pulses of this one
    std::vector<std::int64_t> m_rateBase;     // per worker, at the start of the rate window
    std::vector<double> m_rates;              // per worker: its gradients applied per second
    std::int64_t m_updatesBase = 0;           // updates at the start of the rate window
    double m_updateRate = 0.0;                // updates applied per second
    QElapsedTimer m_rateClock;
    std::int64_t m_drawnUpdates = -1;
    std::vector<WorkerStatus> m_status;  // per worker, as last read while the run was live
    std::int64_t m_lostAt = -1;          // the update the lost server stopped the run at
    QString m_resumeMessage;             // what the last resume said
};

}  // namespace distlab::ui
