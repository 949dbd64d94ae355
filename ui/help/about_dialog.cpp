#include "help/about_dialog.hpp"

#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QLabel>
#include <QVBoxLayout>
#include <QtGlobal>

#include <distlab/device/device_info.hpp>

#include "count_text.hpp"

namespace distlab::ui {

namespace {
QString text(const std::string& value) { return QString::fromStdString(value).toHtmlEscaped(); }

QString row(const QString& name, const QString& value) {
    return QStringLiteral("<tr><td style='padding-right:12px'>%1</td><td>%2</td></tr>").arg(name, value);
}
}  // namespace

QString aboutText(const DeviceReport& report) {
    QString gpus;
    if (!report.gpuBackendLoaded) {
        gpus = AboutDialog::tr("none: the CUDA backend did not load: %1").arg(text(report.gpuBackendError));
    } else if (report.gpus.empty()) {
        gpus = AboutDialog::tr("none usable: %1").arg(text(report.gpuUnavailableReason));
    } else {
        gpus = countText(static_cast<qint64>(report.gpus.size()), AboutDialog::tr("GPU"), AboutDialog::tr("GPUs")) + QStringLiteral(" (") +
               text(report.gpus.front().name) + QStringLiteral(")");
    }
    QString html = AboutDialog::tr(
                       "<h3>DistLab %1</h3><p>Watch distributed neural-network training live: every replica, "
                       "gradient and message computed by a real engine.</p>")
                       .arg(text(report.distlabVersion));
    html += QStringLiteral("<table>");
    html += row(AboutDialog::tr("Qt"),
                AboutDialog::tr("%1 (built with %2)").arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
    html += row(AboutDialog::tr("Eigen"), text(report.eigenVersion));
    html += row(AboutDialog::tr("Gloo"), AboutDialog::tr("%1 (between worker processes)").arg(text(report.glooVersion)));
    html += row(AboutDialog::tr("Matrix products"), text(report.cpuMatrixProduct));
    html += row(AboutDialog::tr("OpenBLAS kernels"),
                AboutDialog::tr("%1 (chosen by %2)").arg(text(report.cpuOpenBlasKernels), text(report.cpuOpenBlasKernelsChosenBy)));
    html += row(AboutDialog::tr("OpenBLAS library"), text(report.cpuOpenBlasLibrary));
    html += row(AboutDialog::tr("CUDA runtime"), text(report.cudaRuntimeVersion));
    html += row(AboutDialog::tr("NCCL"), text(report.ncclVersion));
    html += row(AboutDialog::tr("GPUs"), gpus);
    html += QStringLiteral("</table>");
    return html;
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent), m_text(aboutText(queryDevices())) {
    setObjectName(QStringLiteral("aboutDialog"));
    setWindowTitle(tr("About DistLab"));
    auto* label = new QLabel(m_text, this);
    label->setObjectName(QStringLiteral("aboutText"));
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(buttons);
    setMinimumWidth(460);
}

}  // namespace distlab::ui
