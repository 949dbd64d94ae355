#include "run_files.hpp"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QPixmap>
#include <QStandardPaths>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <distlab/files/atomic_file.hpp>
#include <distlab/formats/chrome_trace_writer.hpp>
#include <distlab/config/run_config_json.hpp>

#include "bridge/run_history.hpp"
#include "run_palette.hpp"

namespace distlab::ui {

namespace {
std::string local(const QString& path) { return QFile::encodeName(path).toStdString(); }

void appendNumber(std::string& line, double value) {
    line += ',';
    if (std::isfinite(value)) line += QString::number(value, 'g', 10).toStdString();
}
}  // namespace

Result<RunConfig> openRunConfigFile(const QString& path, const QStringList& overrides) {
    std::vector<std::string> sets;
    for (const QString& set : overrides) sets.push_back(set.toStdString());
    return loadRunConfig(local(path), sets);
}

RunConfig rebaseDataPaths(const RunConfig& config, const QString& directory) {
    RunConfig rebased = config;
    const QDir from(config.baseDirectory.empty() ? QDir::currentPath() : QString::fromStdString(config.baseDirectory));
    const QDir to(QFileInfo(directory).absoluteFilePath());
    auto rebase = [&](std::string& path) {
        if (path.empty()) return;
        const QString original = QString::fromStdString(path);
        const QString absolute = QDir::cleanPath(from.absoluteFilePath(original));
        const QString relative = to.relativeFilePath(absolute);
        // A file chosen by absolute path outside the config's folder (e.g. /usr/share/...) stays absolute.
        const bool outside = relative.startsWith(QLatin1String(".."));
        path = (QDir::isAbsolutePath(original) && outside ? absolute : relative).toStdString();
    };
    DataConfig& data = rebased.data;
    for (std::string* path : {&data.path, &data.testPath, &data.images, &data.labels, &data.testImages, &data.testLabels}) {
        rebase(*path);
    }
    rebased.baseDirectory = to.absolutePath().toStdString();
    return rebased;
}

Status saveRunConfigFile(const RunConfig& config, const QString& path) {
    const QFileInfo info(path);
    const RunConfig rebased = rebaseDataPaths(config, info.absolutePath());
    if (Status valid = validateRunConfig(rebased, info.fileName().toStdString()); !valid) return valid;
    return writeFileAtomically(local(path), runConfigToJson(rebased));
}

Status exportMetricsCsv(const RunHistory& history, const QString& path) {
    // Parameter-server runs also say whose gradient each update applied and how stale it was (as
    // the CLI's metrics); the columns are the ones a saved run keeps (metricColumns).
    const bool parameterServers = history.isParameterServer();
    std::vector<MetricColumn> columns;
    for (const MetricColumn& column : metricColumns())
        if (parameterServers || !column.parameterServer) columns.push_back(column);
    std::string text;
    for (const MetricColumn& column : columns) (text += text.empty() ? "" : ",") += column.name;
    text += '\n';
    const std::vector<MetricRow> rows = history.rows();
    text.reserve(text.size() + rows.size() * 130);
    for (const MetricRow& row : rows) {
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const double value = columns[c].get(row);
            if (columns[c].integer)
                (text += c == 0 ? "" : ",") += std::to_string(static_cast<std::int64_t>(value));
            else if (c == 0)
                text += QString::number(value, 'g', 10).toStdString();
            else
                appendNumber(text, value);
        }
        text += '\n';
    }
    return writeFileAtomically(local(path), text);
}

Status exportTimelineTrace(const RunHistory& history, const QStringList& deviceNames, const QString& runName, const QString& path) {
    std::vector<std::string> devices;
    for (int r = 0; r < history.replicaCount(); ++r) {
        devices.push_back(r < deviceNames.size() ? deviceNames[r].toStdString() : "cpu:" + std::to_string(r));
    }
    auto writer = ChromeTraceWriter::open(local(path), runName.toStdString(), devices);
    if (!writer) return writer.error();
    // Every step the history keeps for the trace (the last RunHistory::kTraceSteps), not only the timeline's.
    for (int i = 0; i < history.traceCount(); ++i) {
        for (int r = 0; r < history.replicaCount(); ++r) {
            const TraceLane& record = history.traceLane(i, r);
            if (record.step == 0) continue;
            for (const PhaseSpan& part : phaseSpans(record.times)) {
                if (part.endNs <= part.beginNs) continue;
                TraceSpan span;
                span.device = r;
                span.name = phaseName(part.phase);
                span.step = record.step;
                span.startUs = static_cast<double>(part.beginNs) * 1e-3;
                span.durationUs = static_cast<double>(part.endNs - part.beginNs) * 1e-3;
                writer->add(span);
            }
        }
    }
    return writer->close();
}

QStringList resourceFolders(const QString& applicationDir, const QString& kind) {
    QStringList folders;
    auto add = [&](const QString& folder) {
        const QString clean = QDir::cleanPath(folder);
        if (!clean.isEmpty() && !folders.contains(clean)) folders.append(clean);
    };
    add(QDir(applicationDir).filePath(QStringLiteral("../share/distlab/") + kind));
    for (const QString& data : QStandardPaths::standardLocations(QStandardPaths::GenericDataLocation))
        add(QDir(data).filePath(QStringLiteral("distlab/") + kind));
#ifdef DISTLAB_SOURCE_RESOURCES_DIR
    add(QDir(QStringLiteral(DISTLAB_SOURCE_RESOURCES_DIR)).filePath(kind));
#endif
    return folders;
}

QStringList exampleFolders(const QString& applicationDir) { return resourceFolders(applicationDir, QStringLiteral("examples")); }

QStringList exampleFiles(const QString& applicationDir, ExampleKind kind) {
    const QString studySuffix = QStringLiteral(".study.json");
    QStringList names;
    QStringList files;
    for (const QString& folder : exampleFolders(applicationDir)) {
        const QFileInfoList entries = QDir(folder).entryInfoList({QStringLiteral("*.json")}, QDir::Files | QDir::Readable, QDir::Name);
        for (const QFileInfo& entry : entries) {
            if (entry.fileName().endsWith(studySuffix) != (kind == ExampleKind::Study)) continue;
            if (names.contains(entry.fileName())) continue;
            names.append(entry.fileName());
            files.append(entry.absoluteFilePath());
        }
    }
    std::sort(files.begin(), files.end(),
              [](const QString& a, const QString& b) { return QFileInfo(a).fileName() < QFileInfo(b).fileName(); });
    return files;
}

Status saveWidgetPng(QWidget* widget, const QString& path) {
    const QPixmap picture = widget->grab();
    if (picture.isNull()) return Error{path.toStdString() + ": nothing to save (the view has no size yet)"};
    // Encoded in memory, then written the one way every file is saved (atomic, checked target).
    QByteArray png;
    QBuffer buffer(&png);
    if (!buffer.open(QIODevice::WriteOnly) || !picture.save(&buffer, "PNG"))
        return Error{path.toStdString() + ": cannot encode the picture as PNG"};
    return writeFileAtomically(local(path), std::string_view(png.constData(), static_cast<std::size_t>(png.size())));
}

}  // namespace distlab::ui
