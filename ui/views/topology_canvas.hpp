#pragma once
// Paints a parameter-server cluster: the servers in a row at the top (each listing the variable
// shards it holds), the workers in a row at the bottom (gradient count, speed, state), an edge from
// every worker to every server, and a short pulse per applied update: a dot runs up the edges (the
// push) and back down (the pull of the new parameters). Columns are equal-width, so controls laid
// out in equal columns under it line up with the boxes. GUI thread only.
#include <QElapsedTimer>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace distlab::ui {

class TopologyCanvas : public QWidget {
    Q_OBJECT

public:
    /// How long one push-and-pull pulse takes, milliseconds.
    static constexpr int kPulseMs = 450;

    struct Server {
        QStringList shards;  ///< "dense_0/kernel/part_0 (4 rows)"
        bool lost = false;
    };
    struct Worker {
        bool alive = true;
        bool paused = false;
        double speed = 1.0;
        std::int64_t gradients = 0;  ///< pushed
        std::int64_t applied = 0;    ///< applied at the servers
        double updatesPerSecond = 0.0;
    };

    explicit TopologyCanvas(QWidget* parent = nullptr);

    void setServers(std::vector<Server> servers);
    void setWorkers(std::vector<Worker> workers);
    void setServerLost(int server);
    /// Starts a pulse on worker `worker`'s edges unless one is still running.
    void pulse(int worker);
    /// True while a pulse is running (the owner repaints each frame then).
    bool animating() const;
    /// Pulses started since the run began (for tests).
    std::int64_t pulsesStarted() const { return m_pulsesStarted; }
    int serverCount() const { return static_cast<int>(m_servers.size()); }
    const Worker& worker(int index) const { return m_workers[static_cast<std::size_t>(index)]; }
    int workerCount() const { return static_cast<int>(m_workers.size()); }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRectF serverRect(int server) const;
    QRectF workerRect(int worker) const;
    void paintServer(QPainter& painter, int server) const;
    void paintWorker(QPainter& painter, int worker) const;

    std::vector<Server> m_servers;
    std::vector<Worker> m_workers;
    std::vector<qint64> m_pulseStartMs;  // per worker, -1: none
    QElapsedTimer m_clock;
    std::int64_t m_pulsesStarted = 0;
};

}  // namespace distlab::ui
