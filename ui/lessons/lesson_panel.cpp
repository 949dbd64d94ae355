#include "lessons/lesson_panel.hpp"

#include <QButtonGroup>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

#include <distlab/distribute/varlab_script.hpp>

#include "lessons/lesson_facts.hpp"
#include "bridge/session_controller.hpp"
#include "lessons/engine_fact.hpp"
#include "lessons/lesson_highlight.hpp"
#include "main_window.hpp"
#include "panels/explanation_label.hpp"
#include "run_files.hpp"
#include "study/study_window.hpp"
#include "varlab/variable_lab_panel.hpp"

namespace distlab::ui {

namespace {
constexpr int kHighlightRetryMs = 200;
constexpr int kHighlightTries = 10;  // after the run has loaded: two seconds for its views to build their controls
}  // namespace

LessonPanel::LessonPanel(MainWindow& window, QWidget* parent) : QWidget(parent), m_window(window) {
    setObjectName(QStringLiteral("lessonPanel"));
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    m_title->setFont(bold);
    m_counter = new QLabel(this);
    styleAsExplanation(*m_counter);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("lessonText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_text);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_questionBox = new QWidget(this);
    m_questionLayout = new QVBoxLayout(m_questionBox);
    m_questionLayout->setContentsMargins(0, 0, 0, 0);
    m_questionText = new QLabel(m_questionBox);
    m_questionText->setWordWrap(true);
    m_questionText->setFont(bold);
    m_questionLayout->addWidget(m_questionText);
    m_feedback = new QLabel(this);
    m_feedback->setObjectName(QStringLiteral("lessonFeedback"));
    m_feedback->setWordWrap(true);
    m_back = new QPushButton(tr("Back"), this);
    m_next = new QPushButton(tr("Next"), this);
    m_next->setObjectName(QStringLiteral("lessonNext"));
    auto* nav = new QHBoxLayout();
    nav->addWidget(m_back);
    nav->addStretch(1);
    nav->addWidget(m_next);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_counter);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_questionBox);
    layout->addWidget(m_feedback);
    layout->addLayout(nav);
    m_engineFact = new EngineFact(window, this);
    connect(m_engineFact, &EngineFact::answered, this, [this] {
        if (!m_waitingAnswer) return;
        const QString answer = *std::exchange(m_waitingAnswer, std::nullopt);
        check(answer);
    });
    connect(m_back, &QPushButton::clicked, this, [this] { showStep(m_step - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { showStep(m_step + 1); });
    m_questionBox->hide();
}

LessonPanel::~LessonPanel() { delete m_highlight; }

void LessonPanel::open(Lesson lesson) {
    m_lesson = std::move(lesson);
    m_title->setText(m_lesson->title);
    showStep(0);
}

QString LessonPanel::findExample(const QString& fileName) const {
    for (const QString& folder : exampleFolders(QCoreApplication::applicationDirPath())) {
        const QString path = folder + QLatin1Char('/') + fileName;
        if (QFileInfo(path).isFile()) return path;
    }
    return {};
}

bool LessonPanel::runVarlabScript(const QString& script) {
    auto parsed = parseVarlabScript(script.toStdString(), "lesson varlab");
    auto* lab = m_window.findChild<VariableLabPanel*>();
    if (!parsed || lab == nullptr) {
        m_problem = parsed ? tr("The variable lab is not there.") : QString::fromStdString(parsed.error().message);
        return false;
    }
    // The lab starts from what the script declares, then applies its ops one by one as the Apply button does.
    lab->resetAll();
    for (const VariableSpec& spec : parsed->variables) lab->createVariable(spec, parsed->strategy, parsed->replicas);
    for (const VarlabOp& op : parsed->ops) lab->applyOp(QString::fromStdString(op.var), op.request);
    return true;
}

bool LessonPanel::showStep(int index) {
    if (!m_lesson || index < 0 || index >= static_cast<int>(m_lesson->steps.size())) return false;
    m_step = index;
    const LessonStep& step = m_lesson->steps[static_cast<std::size_t>(index)];
    m_waitingAnswer.reset();
    m_engineFact->follow(step.question ? step.question->fact : QString());
    m_problem.clear();
    m_counter->setText(tr("Step %1 of %2").arg(index + 1).arg(m_lesson->steps.size()));
    m_text->setText(step.text);
    m_back->setEnabled(index > 0);
    m_next->setEnabled(index + 1 < static_cast<int>(m_lesson->steps.size()));
    m_feedback->clear();
    bool ok = true;
    if (!step.openConfig.isEmpty()) {
        const QString path = findExample(step.openConfig);
        if (path.isEmpty())
            m_problem = tr("The example run %1 is not installed.").arg(step.openConfig);
        else if (!m_window.openConfig(path, step.play, step.overrides))
            m_problem = tr("The run this step needs was not opened.");
    } else if (step.play && step.openStudy.isEmpty()) {
        m_window.playAction()->trigger();
    }
    if (!step.openStudy.isEmpty()) {
        const QString path = findExample(step.openStudy);
        if (path.isEmpty() || !m_window.openStudy(path))
            m_problem = tr("The study %1 could not be opened.").arg(step.openStudy);
        else if (step.play)
            m_window.studyWindow()->run();  // "play" on a study step runs the study
    }
    if (!step.varlabScript.isEmpty()) runVarlabScript(step.varlabScript);
    if (!step.tab.isEmpty()) {
        QTabWidget& views = m_window.views();
        for (int t = 0; t < views.count(); ++t)
            if (views.tabText(t) == step.tab) views.setCurrentIndex(t);
    }
    delete m_highlight;
    m_highlight = nullptr;
    m_highlightTries = 0;
    if (!step.highlight.isEmpty()) pointAtTarget();
    if (!m_problem.isEmpty()) {
        ok = false;
        m_feedback->setText(m_problem);
    }
    clearQuestion();
    if (step.question) buildQuestion(*step.question);
    return ok;
}

void LessonPanel::pointAtTarget() {
    if (QWidget* target = highlightTarget()) {
        delete m_highlight;
        m_highlight = new LessonHighlight(target);
        return;
    }
    // Some controls exist only once the run the step opened has loaded (a worker's slider): look
    // again while it loads, and say so only if it is still missing after that.
    const bool loading = m_window.controller().isLoading() || !m_window.controller().hasRun();
    if (loading || ++m_highlightTries < kHighlightTries) {
        QTimer::singleShot(kHighlightRetryMs, this, [this, step = m_step] {
            if (step == m_step) pointAtTarget();
        });
        return;
    }
    m_problem = tr("The control %1 is not on screen.").arg(m_lesson->steps[static_cast<std::size_t>(m_step)].highlight);
    m_feedback->setText(m_problem);
}

QWidget* LessonPanel::highlightTarget() const {
    if (!m_lesson) return nullptr;
    const QString& name = m_lesson->steps[static_cast<std::size_t>(m_step)].highlight;
    if (name.isEmpty()) return nullptr;
    if (QWidget* found = m_window.findChild<QWidget*>(name)) return found;
    if (StudyWindow* study = m_window.studyWindow()) return study->findChild<QWidget*>(name);
    return nullptr;
}

void LessonPanel::clearQuestion() {
    delete m_choices;
    m_choices = nullptr;
    while (m_questionLayout->count() > 1) {
        QLayoutItem* item = m_questionLayout->takeAt(1);
        delete item->widget();
        delete item;
    }
    m_number = nullptr;
    m_questionBox->hide();
}

void LessonPanel::buildQuestion(const LessonQuestion& question) {
    m_questionText->setText(question.text);
    if (question.choices.isEmpty()) {
        m_number = new QLineEdit(m_questionBox);
        m_number->setObjectName(QStringLiteral("lessonAnswer"));
        m_number->setPlaceholderText(tr("a number"));
        m_questionLayout->addWidget(m_number);
    } else {
        m_choices = new QButtonGroup(this);
        for (int c = 0; c < question.choices.size(); ++c) {
            auto* choice = new QRadioButton(question.choices[c], m_questionBox);
            m_choices->addButton(choice, c);
            m_questionLayout->addWidget(choice);
        }
    }
    auto* checkButton = new QPushButton(tr("Check"), m_questionBox);
    checkButton->setObjectName(QStringLiteral("lessonCheck"));
    connect(checkButton, &QPushButton::clicked, this, [this] {
        if (m_number != nullptr)
            check(m_number->text());
        else if (m_choices != nullptr && m_choices->checkedButton() != nullptr)
            check(m_choices->checkedButton()->text());
    });
    m_questionLayout->addWidget(checkButton);
    m_questionBox->show();
}

std::optional<QString> LessonPanel::expectedAnswer() const {
    if (!m_lesson) return std::nullopt;
    const std::optional<LessonQuestion>& question = m_lesson->steps[static_cast<std::size_t>(m_step)].question;
    if (!question) return std::nullopt;
    if (question->fact.isEmpty()) return question->choices.value(question->answer);
    if (isEngineFact(question->fact)) return m_engineFact->value();
    return lessonFact(m_window, question->fact);
}

bool LessonPanel::check(const QString& answer) {
    const std::optional<QString> expected = expectedAnswer();
    if (!expected) {
        m_feedback->setText(tr("The run cannot tell yet: let it train a little longer (Play), then check again."));
        const std::optional<LessonQuestion>& question = m_lesson->steps[static_cast<std::size_t>(m_step)].question;
        if (question && isEngineFact(question->fact)) m_waitingAnswer = answer;
        return false;
    }
    const LessonQuestion& question = *m_lesson->steps[static_cast<std::size_t>(m_step)].question;
    bool right = answer.trimmed() == *expected;
    if (question.choices.isEmpty()) {
        bool isNumber = false, expectedNumber = false;
        const double given = answer.trimmed().toDouble(&isNumber);
        const double truth = expected->toDouble(&expectedNumber);
        right = isNumber && expectedNumber && std::abs(given - truth) <= question.tolerance;
    }
    m_feedback->setText(right ? tr("Right: %1. %2").arg(*expected, question.explanation)
                              : tr("Not quite: look again at what the highlighted view shows, and try again."));
    return right;
}

QString LessonPanel::feedback() const { return m_feedback->text(); }

}  // namespace distlab::ui
