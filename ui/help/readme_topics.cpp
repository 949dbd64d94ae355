#include "help/readme_topics.hpp"

#include <QFile>
#include <QObject>
#include <QRegularExpression>
#include <QStringList>

namespace distlab::ui {

namespace {
bool developerSection(const QString& title) {
    static const QStringList skipped = {QStringLiteral("Tests"), QStringLiteral("Layout"), QStringLiteral("Documentation")};
    return skipped.contains(title);
}

/// A heading line's level (2 for "## …", 3 for "### …"), 0 for any other line.
int headingLevel(const QString& line) {
    if (line.startsWith(QStringLiteral("### "))) return 3;
    if (line.startsWith(QStringLiteral("## "))) return 2;
    return 0;
}
}  // namespace

QList<HelpTopic> readmeTopics(const QString& readme) {
    static const QRegularExpression image(QStringLiteral("^!\\[[^\\]]*\\]\\([^)]*\\)\\s*$"));
    QList<HelpTopic> topics;
    HelpTopic* current = nullptr;
    bool skipping = true;  // before the first section, and in a developer section
    bool inCode = false;
    for (const QString& line : readme.split(QLatin1Char('\n'))) {
        if (line.startsWith(QStringLiteral("```"))) inCode = !inCode;
        const int level = inCode ? 0 : headingLevel(line);
        if (level > 0) {
            const QString title = line.mid(level + 1).trimmed();
            skipping = developerSection(title);
            current = nullptr;
            if (!skipping) {
                topics.append(HelpTopic{title, QStringLiteral("## ") + title + QStringLiteral("\n")});
                current = &topics.last();
            }
            continue;
        }
        if (skipping || current == nullptr) continue;
        if (image.match(line).hasMatch()) continue;  // the screenshots are not built in
        current->markdown += line + QLatin1Char('\n');
    }
    return topics;
}

QString builtInReadme() {
    QFile file(QString::fromLatin1(kHelpResourceRoot) + QStringLiteral("/README.md"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

QList<std::pair<QString, QString>> helpDocuments() {
    const QString root = QString::fromLatin1(kHelpResourceRoot);
    return {{QObject::tr("Architecture"), root + QStringLiteral("/docs/architecture.md")},
            {QObject::tr("What the engine computes (semantics)"), root + QStringLiteral("/docs/semantics.md")},
            {QObject::tr("Run configs, command lines and file formats"), root + QStringLiteral("/docs/interfaces.md")}};
}

}  // namespace distlab::ui
