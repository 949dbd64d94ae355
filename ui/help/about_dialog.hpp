#pragma once
// Help ▸ About DistLab: the version, and what this process trains with: the Qt and Eigen
// versions, where float matrix products run (the engine's packed kernel, OpenBLAS's kernel type),
// and whether CUDA and NCCL are built in and a GPU is usable. GUI thread.
#include <QDialog>
#include <QString>

namespace distlab {
struct DeviceReport;
}

namespace distlab::ui {

/// The About text (HTML) for `report` (queryDevices(): what `distlab-cli devices` prints).
QString aboutText(const DeviceReport& report);

class AboutDialog : public QDialog {
    Q_OBJECT

public:
    /// Probes the devices (queryDevices: up to about a second on a GPU machine) and shows the text.
    explicit AboutDialog(QWidget* parent = nullptr);
    /// The text shown (tests).
    QString text() const { return m_text; }

private:
    QString m_text;
};

}  // namespace distlab::ui
