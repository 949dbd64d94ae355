#include "study/new_study_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardItemModel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <distlab/study/study_knobs.hpp>

#include "panels/explanation_label.hpp"

namespace distlab::ui {

namespace {
// A knob's JSON value as the list shows it: a string without its quotes.
QString shown(const std::string& json) {
    QString text = QString::fromStdString(json);
    if (text.size() >= 2 && text.startsWith(QLatin1Char('"')) && text.endsWith(QLatin1Char('"'))) text = text.mid(1, text.size() - 2);
    return text;
}

// The engine names what is wrong as a study file would ("study: variants[2]: data.global_batch_size:
// ..."); here there is no file: the variant is named by its label, the rest said as a sentence.
QString problemText(const std::string& message, const QStringList& labels) {
    QString text = QString::fromStdString(message);
    if (text.startsWith(QLatin1String("study: "))) text = text.mid(7);
    static const QRegularExpression variant(QStringLiteral("^variants\\[(\\d+)\\]: (.*)$"), QRegularExpression::DotMatchesEverythingOption);
    if (const QRegularExpressionMatch match = variant.match(text); match.hasMatch()) {
        const int index = match.captured(1).toInt();
        const QString label = index < labels.size() ? labels[index] : QString::number(index + 1);
        return NewStudyDialog::tr("The variant “%1” is not a run the app can train: %2").arg(label, match.captured(2));
    }
    if (text.startsWith(QLatin1String("variants: "))) text = text.mid(10);
    if (!text.isEmpty()) text[0] = text[0].toUpper();
    return text;
}
}  // namespace

NewStudyDialog::NewStudyDialog(const RunConfig& base, QWidget* parent) : QDialog(parent), m_base(base) {
    setObjectName(QStringLiteral("newStudyDialog"));
    setWindowTitle(tr("New study from this run"));
    auto* form = new QFormLayout();
    m_pickers[0] = makePicker(0);
    form->addRow(tr("Vary"), m_pickers[0].knob);
    form->addRow(QString(), m_pickers[0].choices);
    form->addRow(QString(), m_pickers[0].numbers);
    m_second = new QCheckBox(tr("and also vary"), this);
    m_pickers[1] = makePicker(1);
    form->addRow(m_second, m_pickers[1].knob);
    form->addRow(QString(), m_pickers[1].choices);
    form->addRow(QString(), m_pickers[1].numbers);
    m_steps = new QSpinBox(this);
    m_steps->setRange(1, 1'000'000);
    m_steps->setValue(static_cast<int>(std::clamp<std::int64_t>(base.steps > 0 ? base.steps : 500, 1, 1'000'000)));
    m_steps->setSuffix(tr(" updates each"));
    form->addRow(tr("Train"), m_steps);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("newStudyProblem"));
    m_problem->setWordWrap(true);
    styleAsExplanation(*m_problem);
    auto* note = new QLabel(tr("Every variant starts from the same seed and data as this run; the first value is the "
                               "baseline. 2 to 6 variants."),
                            this);
    note->setWordWrap(true);
    styleAsExplanation(*note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Make the study"));
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (study()) accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    connect(m_second, &QCheckBox::toggled, this, &NewStudyDialog::setSecondKnobUsed);
    setSecondKnobUsed(false);
    m_pickers[1].knob->setCurrentIndex(1);
}

NewStudyDialog::KnobPicker NewStudyDialog::makePicker(int slot) {
    KnobPicker picker;
    picker.knob = new QComboBox(this);
    picker.knob->setObjectName(QStringLiteral("knob%1").arg(slot));
    // A knob that cannot vary this run is listed, greyed, with the reason as its tooltip.
    auto* model = qobject_cast<QStandardItemModel*>(picker.knob->model());
    int firstAvailable = -1;
    for (const StudyKnob& knob : studyKnobs()) {
        picker.knob->addItem(QString::fromStdString(knob.label));
        const std::string reason = knobUnavailableReason(m_base, knob.key);
        if (QStandardItem* item = model != nullptr ? model->item(picker.knob->count() - 1) : nullptr; item && !reason.empty()) {
            item->setEnabled(false);
            item->setToolTip(QString::fromStdString(reason));
        } else if (firstAvailable < 0) {
            firstAvailable = picker.knob->count() - 1;
        }
    }
    picker.knob->setCurrentIndex(std::max(0, firstAvailable));
    picker.choices = new QListWidget(this);
    picker.choices->setObjectName(QStringLiteral("knobChoices%1").arg(slot));
    picker.choices->setMaximumHeight(110);
    picker.numbers = new QLineEdit(this);
    picker.numbers->setObjectName(QStringLiteral("knobNumbers%1").arg(slot));
    picker.numbers->setPlaceholderText(tr("values, separated by commas (e.g. 0.01, 0.03, 0.1)"));
    connect(picker.knob, &QComboBox::currentIndexChanged, this, [this, slot] { showKnob(m_pickers[slot]); });
    showKnob(picker);
    return picker;
}

void NewStudyDialog::showKnob(KnobPicker& picker) {
    const StudyKnob& knob = studyKnobs()[static_cast<std::size_t>(std::max(0, picker.knob->currentIndex()))];
    picker.choices->clear();
    for (const std::string& choice : knob.choices) {
        auto* item = new QListWidgetItem(shown(choice), picker.choices);
        item->setData(Qt::UserRole, QString::fromStdString(choice));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    const bool free = knob.choices.empty();
    picker.choices->setVisible(!free && picker.knob->isEnabled());
    picker.numbers->setVisible(free && picker.knob->isEnabled());
}

void NewStudyDialog::setSecondKnobUsed(bool used) {
    m_second->setChecked(used);
    m_pickers[1].knob->setEnabled(used);
    showKnob(m_pickers[1]);
}

void NewStudyDialog::choose(int slot, int knob, const QStringList& values) {
    KnobPicker& picker = m_pickers[slot];
    picker.knob->setCurrentIndex(knob);
    if (studyKnobs()[static_cast<std::size_t>(knob)].choices.empty()) {
        picker.numbers->setText(values.join(QStringLiteral(", ")));
        return;
    }
    for (int i = 0; i < picker.choices->count(); ++i) {
        QListWidgetItem* item = picker.choices->item(i);
        item->setCheckState(values.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
    }
}

void NewStudyDialog::setSteps(std::int64_t steps) { m_steps->setValue(static_cast<int>(steps)); }

QStringList NewStudyDialog::valuesOf(const KnobPicker& picker) const {
    QStringList values;
    if (picker.numbers->isVisibleTo(this) || studyKnobs()[static_cast<std::size_t>(picker.knob->currentIndex())].choices.empty()) {
        for (const QString& part : picker.numbers->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!part.trimmed().isEmpty()) values.append(part.trimmed());
        return values;
    }
    for (int i = 0; i < picker.choices->count(); ++i)
        if (picker.choices->item(i)->checkState() == Qt::Checked) values.append(picker.choices->item(i)->data(Qt::UserRole).toString());
    return values;
}

std::optional<Study> NewStudyDialog::study() {
    std::vector<KnobValues> knobs;
    for (int slot = 0; slot < (m_second->isChecked() ? 2 : 1); ++slot) {
        KnobValues knob;
        knob.key = studyKnobs()[static_cast<std::size_t>(m_pickers[slot].knob->currentIndex())].key;
        for (const QString& value : valuesOf(m_pickers[slot])) knob.values.push_back(value.toStdString());
        knobs.push_back(std::move(knob));
    }
    RunConfig base = m_base;
    base.steps = m_steps->value();
    auto made = studyVarying(base, knobs, "study");
    if (!made) {
        // The labels studyVarying gives: every value of the first knob, times the second's.
        QStringList labels;
        const std::vector<std::string> none{""};
        for (const std::string& a : knobs[0].values)
            for (const std::string& b : knobs.size() > 1 ? knobs[1].values : none)
                labels.append(b.empty() ? shown(a) : shown(a) + QStringLiteral(", ") + shown(b));
        m_problem->setText(problemText(made.error().message, labels));
        return std::nullopt;
    }
    m_problem->clear();
    made->spec.steps = m_steps->value();
    return std::move(*made);
}

}  // namespace distlab::ui
