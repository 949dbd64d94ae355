#pragma once
// One line under the replica count saying what the GPUs of this machine can do for a run: why
// none is usable (no driver, built without CUDA, ...), or which were found and where GPU training
// stands (until it has run on a GPU: "built, not yet verified on a GPU", and replicas run on
// logical CPU devices). The devices are probed once, off the GUI thread (the
// CUDA runtime can take a second to start).
#include <QLabel>

namespace distlab {
struct DeviceReport;
}

namespace distlab::ui {

class GpuNote : public QLabel {
    Q_OBJECT

public:
    explicit GpuNote(QWidget* parent = nullptr);
    /// True once the probe has answered.
    bool probed() const { return m_probed; }
    /// The sentence for a device report (pure; for tests).
    static QString describe(const DeviceReport& report);

private:
    bool m_probed = false;
};

}  // namespace distlab::ui
