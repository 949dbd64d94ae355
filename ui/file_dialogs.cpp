#include "file_dialogs.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace distlab::ui {

namespace {
constexpr const char* kLastFolder = "files/lastFolder";
}

QString askSavePath(QWidget* parent, const QString& caption, const QString& filter, const QString& suffix) {
    QSettings settings;
    QString path = QFileDialog::getSaveFileName(parent, caption, settings.value(kLastFolder).toString(), filter);
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
