#include "file_dialogs.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

#include <distlab/files/file_names.hpp>

namespace distlab::ui {

namespace {
constexpr const char* kLastFolder = "files/lastFolder";
}

QString suggestedFileName(const std::string& name, const QString& suffix) {
    return QString::fromStdString(exportFileStem(name)) + QLatin1Char('.') + suffix;
}

QString askSavePath(QWidget* parent, const QString& caption, const QString& filter, const QString& suffix, const QString& suggestedName) {
    QSettings settings;
    const QString folder = settings.value(kLastFolder).toString();
    const QString proposed = folder.isEmpty() ? suggestedName : folder + QLatin1Char('/') + suggestedName;
    QString path = QFileDialog::getSaveFileName(parent, caption, proposed, filter);
    if (path.isEmpty()) return {};
    if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
    settings.setValue(kLastFolder, QFileInfo(path).absolutePath());
    return path;
}

QString askOpenPath(QWidget* parent, const QString& caption, const QString& filter) {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(parent, caption, settings.value(kLastFolder).toString(), filter);
    if (!path.isEmpty()) settings.setValue(kLastFolder, QFileInfo(path).absolutePath());
    return path;
}

}  // namespace distlab::ui
