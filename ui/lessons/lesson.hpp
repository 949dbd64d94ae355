#pragma once
// A guided lesson (docs/interfaces.md §14): a title and steps, each step text plus what it opens
// (an example run with overrides, a study, a variable-lab script), the tab and the control it points
// at, whether it plays, and an optional question whose answer is checked against the live run.
// Read from resources/lessons/*.lesson.json. GUI thread (pure data and a file read).
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include <distlab/core/error.hpp>

namespace distlab::ui {

struct LessonQuestion {
    QString text;
    /// The answers offered; empty for a number typed in.
    QStringList choices;
    /// A live fact of the run (lesson_facts.hpp: "max_staleness", "varlab_read:v"): the right answer
    /// is the choice equal to it, or a number within `tolerance` of it.
    QString fact;
    /// Without a fact: the index of the right choice.
    int answer = -1;
    double tolerance = 0.0;
    /// Said after a right answer (why it is so).
    QString explanation;
};

struct LessonStep {
    QString text;           ///< rich text
    QString openConfig;     ///< an example run config's file name (File ▸ Examples), or empty
    QStringList overrides;  ///< `--set` style overrides on it ("strategy.replicas=4")
    QString openStudy;      ///< an example study's file name, or empty
    QString varlabScript;   ///< a variable-lab script (docs/interfaces.md §10) run in the lab, or empty
    QString tab;            ///< the view tab to show ("Servers"), or empty
    QString highlight;      ///< the objectName of the control or view to point at, or empty
    bool play = false;      ///< start training once the run has loaded (a study step: run the study)
    std::optional<LessonQuestion> question;
};

struct Lesson {
    QString file;
    QString title;
    QString summary;
    std::vector<LessonStep> steps;
};

/// Most steps a lesson may have (refused up front).
inline constexpr int kMaxLessonSteps = 40;

/// Reads and checks a lesson file (a regular JSON file of at most 1 MiB); errors name the file and
/// the field ("a.lesson.json: steps[2].question.choices: must be an array of strings").
Result<Lesson> loadLesson(const QString& path);
/// The lessons (*.lesson.json) of the lesson folders (resourceFolders "lessons"), sorted by file
/// name; a name found twice comes from the first folder.
QStringList lessonFiles(const QString& applicationDir);

}  // namespace distlab::ui
