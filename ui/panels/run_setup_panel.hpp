#pragma once
// The "Run set-up" dock: Model, Data, Strategy and Training pages, and a line naming what is
// wrong with the edited set-up (it is applied only once valid). Keeps the output layer matched to
// the data (units and loss) when the data changes.
#include <QStringList>
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QLabel;
class QToolBox;

namespace distlab::ui {

class DataPanel;
class ModelPanel;
class StrategyPanel;
class TrainingPanel;

class RunSetupPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunSetupPanel(QWidget* parent = nullptr);

    /// Shows `config` on every page (emits nothing).
    void setConfig(const RunConfig& config);
    /// `base` with every page's edits applied.
    RunConfig draft(const RunConfig& base) const;
    /// Shows what is wrong with the draft (empty: nothing).
    void setProblem(const QString& problem);
    QString problem() const;
    /// Shows, under the pages, what the edits waiting for a new run are, with a button that starts
    /// it and one that puts the running set-up back (empty: hidden).
    void setPendingNote(const QString& note);
    bool hasPendingNote() const;

    ModelPanel& modelPanel() const { return *m_model; }
    DataPanel& dataPanel() const { return *m_data; }
    StrategyPanel& strategyPanel() const { return *m_strategy; }
    TrainingPanel& trainingPanel() const { return *m_training; }
    QToolBox& pages() const { return *m_pages; }

signals:
    /// Something that needs a new run changed.
    void edited();
    void learningRateEdited(double rate);
    /// "Start a new run with these edits" was clicked.
    void startNewRunRequested();
    /// "Undo edits" was clicked: show the running set-up again.
    void undoEditsRequested();

private:
    void onDataEdited();
    /// Shows the model's placement column for the strategy as edited (split models only).
    void showPlacement();
    void applyFashionPreset();

    QToolBox* m_pages;
    ModelPanel* m_model;
    DataPanel* m_data;
    StrategyPanel* m_strategy;
    TrainingPanel* m_training;
    QLabel* m_problem;
    QWidget* m_pending;
    QLabel* m_pendingText;
};

/// The parts of the set-up that differ between `a` and `b` ("the model", "the strategy", ...),
/// leaving out what applies live (the learning rate, a parameter-server run's mode and worker speeds).
QStringList changedParts(const RunConfig& a, const RunConfig& b);

/// The output units and loss the data of `data` needs, when known without loading it (synthetic,
/// Fashion-MNIST, random); units = 0 when unknown (CSV, IDX).
std::pair<std::int64_t, LossKind> expectedOutput(const DataConfig& data);
/// The input features of `data` when known without loading it (synthetic, Fashion-MNIST, random); 0 otherwise.
std::int64_t inputFeatures(const DataConfig& data);

}  // namespace distlab::ui
