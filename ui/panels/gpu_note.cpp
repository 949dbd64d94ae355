#include "panels/gpu_note.hpp"

#include <QLocale>
#include <QStringList>
#include <QThread>

#include <memory>

#include <distlab/device/device_info.hpp>
#include <distlab/device/gpu_plan.hpp>

#include "panels/explanation_label.hpp"

namespace distlab::ui {

GpuNote::GpuNote(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("gpuNote"));
    styleAsExplanation(*this);
    setText(tr("Looking for GPUs…"));
    auto report = std::make_shared<DeviceReport>();
    QThread* probe = QThread::create([report] { *report = queryDevices(); });
    connect(probe, &QThread::finished, this, [this, report] {
        m_probed = true;
        setText(describe(*report));
    });
    connect(probe, &QThread::finished, probe, &QObject::deleteLater);
    probe->start();
}

QString GpuNote::describe(const DeviceReport& report) {
    if (report.gpus.empty()) {
        return tr("GPUs: none usable here — %1. Replicas run as logical CPU devices, one thread each (GPU training "
                  "in this build: %2).")
            .arg(QString::fromStdString(report.gpuUnavailableReason), QString::fromStdString(gpuTrainingStatus(report)));
    }
    QStringList names;
    for (const GpuInfo& gpu : report.gpus) {
        names.append(tr("%1 (%2, compute %3.%4)")
                         .arg(QString::fromStdString(gpu.name),
                              QLocale().formattedDataSize(static_cast<qint64>(gpu.memoryBytes), 0, QLocale::DataSizeTraditionalFormat))
                         .arg(gpu.computeMajor)
                         .arg(gpu.computeMinor));
    }
    // Never offered as working before it has run on a GPU (kGpuTrainingVerified).
    if (!kGpuTrainingVerified) {
        return tr("GPUs found: %1. GPU training is %2, so the app trains on logical CPU devices only and does not offer "
                  "gpu:K devices yet.")
            .arg(names.join(QStringLiteral(", ")), QString::fromStdString(gpuTrainingStatus(report)));
    }
    return tr("GPUs found: %1. GPU training is %2 (gpu:K devices in the run config).")
        .arg(names.join(QStringLiteral(", ")), QString::fromStdString(gpuTrainingStatus(report)));
}

}  // namespace distlab::ui
