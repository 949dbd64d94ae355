#include "lessons/lesson.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

#include "lessons/lesson_facts.hpp"
#include "run_files.hpp"

namespace distlab::ui {

namespace {

constexpr qint64 kMaxLessonBytes = 1 << 20;

/// Reads a lesson's fields, naming the file and the JSON path of the first problem.
class LessonReader {
public:
    explicit LessonReader(QString file) : m_file(std::move(file)) {}
    bool failed() const { return !m_error.isEmpty(); }
    Error error() const { return Error{m_error.toStdString()}; }
    void fail(const QString& path, const QString& what) {
        if (m_error.isEmpty()) m_error = QStringLiteral("%1: %2: %3").arg(m_file, path, what);
    }
    QString string(const QJsonObject& object, const QString& key, const QString& path, bool required = false) {
        const QJsonValue value = object.value(key);
        if (value.isUndefined()) {
            if (required) fail(path + key, QStringLiteral("missing"));
            return {};
        }
        if (!value.isString()) fail(path + key, QStringLiteral("must be a string"));
        return value.toString();
    }
    QStringList strings(const QJsonObject& object, const QString& key, const QString& path) {
        QStringList list;
        const QJsonValue value = object.value(key);
        if (value.isUndefined()) return list;
        if (!value.isArray()) {
            fail(path + key, QStringLiteral("must be an array of strings"));
            return list;
        }
        for (const QJsonValue& item : value.toArray()) {
            if (!item.isString()) fail(path + key, QStringLiteral("must be an array of strings"));
            list.append(item.toString());
        }
        return list;
    }
    void onlyKeys(const QJsonObject& object, const QStringList& known, const QString& path) {
        for (const QString& key : object.keys())
            if (!known.contains(key)) fail(path + key, QStringLiteral("unknown key (known: %1)").arg(known.join(QStringLiteral(", "))));
    }

private:
    QString m_file;
    QString m_error;
};

std::optional<LessonQuestion> readQuestion(LessonReader& reader, const QJsonValue& value, const QString& path) {
    if (value.isUndefined()) return std::nullopt;
    if (!value.isObject()) {
        reader.fail(path, QStringLiteral("must be an object"));
        return std::nullopt;
    }
    const QJsonObject object = value.toObject();
    reader.onlyKeys(object,
                    {QStringLiteral("text"), QStringLiteral("choices"), QStringLiteral("fact"), QStringLiteral("answer"),
                     QStringLiteral("tolerance"), QStringLiteral("explanation")},
                    path + QLatin1Char('.'));
    LessonQuestion question;
    question.text = reader.string(object, QStringLiteral("text"), path + QLatin1Char('.'), true);
    question.choices = reader.strings(object, QStringLiteral("choices"), path + QLatin1Char('.'));
    question.fact = reader.string(object, QStringLiteral("fact"), path + QLatin1Char('.'));
    question.explanation = reader.string(object, QStringLiteral("explanation"), path + QLatin1Char('.'));
    question.answer = object.value(QStringLiteral("answer")).toInt(-1);
    question.tolerance = object.value(QStringLiteral("tolerance")).toDouble(0.0);
    if (question.fact.isEmpty() && (question.answer < 0 || question.answer >= question.choices.size()))
        reader.fail(path, QStringLiteral("needs a \"fact\" or an \"answer\" that indexes \"choices\""));
    if (!question.fact.isEmpty() && !isLessonFact(question.fact))
        reader.fail(path + QStringLiteral(".fact"), QStringLiteral("\"%1\" is not a fact the app can check").arg(question.fact));
    if (question.choices.size() == 1) reader.fail(path + QStringLiteral(".choices"), QStringLiteral("offer at least two, or none"));
    return question;
}

}  // namespace

Result<Lesson> loadLesson(const QString& path) {
    const QString name = QFileInfo(path).fileName();
    QFile file(path);
    if (!QFileInfo(path).isFile()) return Error{QStringLiteral("lesson: cannot read \"%1\": not a regular file").arg(path).toStdString()};
    if (QFileInfo(path).size() > kMaxLessonBytes) return Error{QStringLiteral("%1: larger than 1 MiB").arg(name).toStdString()};
    if (!file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("lesson: cannot read \"%1\": %2").arg(path, file.errorString()).toStdString()};
    QJsonParseError parse{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parse);
    if (parse.error != QJsonParseError::NoError)
        return Error{QStringLiteral("%1: byte %2: %3").arg(name).arg(parse.offset).arg(parse.errorString()).toStdString()};
    if (!document.isObject()) return Error{QStringLiteral("%1: a lesson is a JSON object").arg(name).toStdString()};
    LessonReader reader(name);
    const QJsonObject root = document.object();
    reader.onlyKeys(root, {QStringLiteral("title"), QStringLiteral("summary"), QStringLiteral("steps")}, QString());
    Lesson lesson;
    lesson.file = QFileInfo(path).absoluteFilePath();
    lesson.title = reader.string(root, QStringLiteral("title"), QString(), true);
    lesson.summary = reader.string(root, QStringLiteral("summary"), QString());
    const QJsonArray steps = root.value(QStringLiteral("steps")).toArray();
    if (steps.isEmpty() || steps.size() > kMaxLessonSteps)
        reader.fail(QStringLiteral("steps"), QStringLiteral("1 to %1 steps").arg(kMaxLessonSteps));
    for (qsizetype i = 0; i < steps.size() && !reader.failed(); ++i) {
        const QString at = QStringLiteral("steps[%1].").arg(i);
        if (!steps[i].isObject()) {
            reader.fail(at.chopped(1), QStringLiteral("must be an object"));
            break;
        }
        const QJsonObject object = steps[i].toObject();
        reader.onlyKeys(
            object,
            {QStringLiteral("text"), QStringLiteral("open"), QStringLiteral("set"), QStringLiteral("study"), QStringLiteral("varlab"),
             QStringLiteral("tab"), QStringLiteral("highlight"), QStringLiteral("play"), QStringLiteral("question")},
            at);
        LessonStep step;
        step.text = reader.string(object, QStringLiteral("text"), at, true);
        step.openConfig = reader.string(object, QStringLiteral("open"), at);
        step.overrides = reader.strings(object, QStringLiteral("set"), at);
        step.openStudy = reader.string(object, QStringLiteral("study"), at);
        if (const QJsonValue script = object.value(QStringLiteral("varlab")); !script.isUndefined()) {
            if (!script.isObject()) reader.fail(at + QStringLiteral("varlab"), QStringLiteral("must be a variable-lab script object"));
            step.varlabScript = QString::fromUtf8(QJsonDocument(script.toObject()).toJson(QJsonDocument::Compact));
        }
        step.tab = reader.string(object, QStringLiteral("tab"), at);
        step.highlight = reader.string(object, QStringLiteral("highlight"), at);
        step.play = object.value(QStringLiteral("play")).toBool(false);
        if (!step.overrides.isEmpty() && step.openConfig.isEmpty())
            reader.fail(at + QStringLiteral("set"), QStringLiteral("overrides apply to the run of \"open\", which is missing"));
        step.question = readQuestion(reader, object.value(QStringLiteral("question")), at + QStringLiteral("question"));
        lesson.steps.push_back(std::move(step));
    }
    if (reader.failed()) return reader.error();
    return lesson;
}

QStringList lessonFiles(const QString& applicationDir) {
    QStringList names;
    QStringList files;
    for (const QString& folder : resourceFolders(applicationDir, QStringLiteral("lessons"))) {
        for (const QFileInfo& entry :
             QDir(folder).entryInfoList({QStringLiteral("*.lesson.json")}, QDir::Files | QDir::Readable, QDir::Name)) {
            if (names.contains(entry.fileName())) continue;
            names.append(entry.fileName());
            files.append(entry.absoluteFilePath());
        }
    }
    std::sort(files.begin(), files.end(),
              [](const QString& a, const QString& b) { return QFileInfo(a).fileName() < QFileInfo(b).fileName(); });
    return files;
}

}  // namespace distlab::ui
