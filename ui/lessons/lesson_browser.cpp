#include "lessons/lesson_browser.hpp"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "lessons/lesson.hpp"
#include "panels/explanation_label.hpp"

namespace distlab::ui {

LessonBrowser::LessonBrowser(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("lessonBrowser"));
    setWindowTitle(tr("Lessons"));
    resize(560, 420);
    m_list = new QListWidget(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    styleAsExplanation(*m_summary);
    m_files = lessonFiles(QCoreApplication::applicationDirPath());
    for (const QString& file : m_files) {
        auto lesson = loadLesson(file);
        auto* item = new QListWidgetItem(lesson ? lesson->title : file, m_list);
        item->setData(Qt::UserRole, file);
        item->setData(Qt::UserRole + 1, lesson ? lesson->summary : QString::fromStdString(lesson.error().message));
        if (!lesson) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &QDialog::accept);
    connect(m_list, &QListWidget::currentItemChanged, this,
            [this](QListWidgetItem* item) { m_summary->setText(item != nullptr ? item->data(Qt::UserRole + 1).toString() : QString()); });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Guided lessons: each opens the runs and views it needs, points at what to look at, "
                                    "and asks questions checked against the live run."),
                                 this));
    layout->addWidget(m_list, 1);
    layout->addWidget(m_summary);
    layout->addWidget(buttons);
    if (m_list->count() > 0) m_list->setCurrentRow(0);
}

QString LessonBrowser::chosenFile() const {
    const QListWidgetItem* item = m_list->currentItem();
    return item != nullptr ? item->data(Qt::UserRole).toString() : QString();
}

}  // namespace distlab::ui
