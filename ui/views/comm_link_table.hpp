#pragma once
// Who sends what to whom: the links the captured all-reduce used, with the bytes and transfer time
// of each (and what that makes over the run: the pattern is the same every step), and per device
// what it sent per step and over the whole run and its mean time in the all-reduce (from the
// engine's step records). GUI thread only.
#include <QStringList>
#include <QWidget>

class QLabel;
class QTableWidget;

namespace distlab::ui {

class AllReduceCapture;
class CommStats;

class CommLinkTable : public QWidget {
    Q_OBJECT

public:
    explicit CommLinkTable(QWidget* parent = nullptr);

    /// Fills the link list from `capture` (may be empty) and the device table from `stats`.
    void setData(const AllReduceCapture& capture, const CommStats& stats, int replicas);
    /// The devices' row names ("worker 1 · cpu:0" for a cluster's lanes); empty: "cpu:N".
    void setLaneNames(QStringList names) { m_laneNames = std::move(names); }
    /// Shows or hides the links' table (hidden where no all-reduce can be captured: a cluster).
    void setLinksShown(bool shown);
    /// One row per link used: link, bytes, time, over the run; then (with 2 or more devices) the
    /// step's figures that every device sends each peer with the last pack.
    QTableWidget& links() const { return *m_links; }
    /// One row per device: sent per step, sent in the run, time in the all-reduce per step.
    QTableWidget& devices() const { return *m_devices; }

private:
    QLabel* m_linksTitle;
    QTableWidget* m_links;
    QLabel* m_devicesTitle;
    QTableWidget* m_devices;
    QStringList m_laneNames;
};

}  // namespace distlab::ui
