#pragma once
// Run ▸ New study from this run: vary one or two knobs of the current run (the engine's list,
// studyKnobs) over values picked here; the variants are built and checked by studyVarying, whose
// error is shown in the dialog. GUI thread.
#include <QDialog>

#include <optional>

#include <distlab/config/run_config.hpp>
#include <distlab/study/study.hpp>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace distlab::ui {

class NewStudyDialog : public QDialog {
    Q_OBJECT

public:
    NewStudyDialog(const RunConfig& base, QWidget* parent = nullptr);

    /// Picks knob `knob` (index in studyKnobs()) as the first or second knob and the values to try:
    /// JSON values as the knob's choices write them ("\"ring\"", "4"), or numbers for a free knob.
    void choose(int slot, int knob, const QStringList& values);
    void setSecondKnobUsed(bool used);
    void setSteps(std::int64_t steps);
    /// The study made of the choices, or nothing (the reason shown in the dialog).
    std::optional<Study> study();

private:
    struct KnobPicker {
        QComboBox* knob = nullptr;
        QListWidget* choices = nullptr;
        QLineEdit* numbers = nullptr;
    };
    KnobPicker makePicker(int slot);
    void showKnob(KnobPicker& picker);
    QStringList valuesOf(const KnobPicker& picker) const;

    RunConfig m_base;
    KnobPicker m_pickers[2];
    QCheckBox* m_second;
    QSpinBox* m_steps;
    QLabel* m_problem;
};

}  // namespace distlab::ui
