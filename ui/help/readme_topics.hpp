#pragma once
// Help ▸ Guide: the README's sections as help topics. The README and docs/ are built into the app
// (Qt resources under :/help), so the topics read the same installed and from a build tree.
#include <QList>
#include <QString>

#include <utility>

namespace distlab::ui {

struct HelpTopic {
    QString title;     ///< the section's heading ("Lessons")
    QString markdown;  ///< the section's text up to the next heading, images left out
};

/// Where the built-in README.md and docs/*.md are: searched for the links between them.
inline constexpr const char* kHelpResourceRoot = ":/help";

/// The sections of `readme` (Markdown) headed "##" or "###", in order, but those for the project's
/// developers (Tests, Layout) and the list of documents (Documentation, see helpDocuments).
/// Headings inside fenced code blocks are code, not sections.
QList<HelpTopic> readmeTopics(const QString& readme);
/// The built-in README.md (empty when missing from the build).
QString builtInReadme();
/// The reference documents built in: {title, resource path} of docs/architecture.md and the rest.
QList<std::pair<QString, QString>> helpDocuments();

}  // namespace distlab::ui
