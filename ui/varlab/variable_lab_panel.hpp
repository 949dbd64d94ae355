#pragma once
// The "Variable lab" tab: create distributed variables under a strategy (docs/semantics.md §1–3, §6.7),
// apply assign / assign_add / assign_sub / read in replica or cross-replica context, and see every
// copy, what a cross-replica read returns, and the rule that decided each outcome (or TF's error).
// It composes a creation form, one card per variable, an op bar and a log; the rules themselves are
// the engine's DistributedVariable. GUI thread only.
#include <QList>
#include <QStringList>
#include <QWidget>

#include <vector>

#include <distlab/distribute/distributed_variable.hpp>

class QLabel;
class QPushButton;
class QScrollArea;
class QVBoxLayout;

namespace distlab::ui {

class OpBar;
class OpLog;
class VariableCard;
class VariableForm;

class VariableLabPanel : public QWidget {
    Q_OBJECT

public:
    explicit VariableLabPanel(QWidget* parent = nullptr);
    ~VariableLabPanel() override;

    /// Creates a variable as the Create button does and makes it the op bar's target; a rejected
    /// creation (TF's error, a duplicate or empty name) is logged in red, creates nothing, returns false.
    bool createVariable(const VariableSpec& spec, VariableStrategy strategy, int replicas);
    /// Applies one op to `variable` as the Apply button does, updates its card and logs the outcome.
    VariableOpResult applyOp(const QString& variable, const VariableOpRequest& request);
    /// Removes `variable` and its card; false when there is none of that name.
    bool removeVariable(const QString& variable);
    void clearLog();
    /// Removes every variable and clears the log.
    void resetAll();

    QStringList variableNames() const;
    /// The text of each copy's cell on `variable`'s card ("2.5"), in replica order; empty if unknown.
    QStringList copyTexts(const QString& variable) const;
    /// Which copies the last op changed (highlighted cells), in replica order.
    QList<bool> changedCopies(const QString& variable) const;
    /// The card's kind badge: "plain", "mirrored", "sync-on-read" or "aggregating".
    QString kindText(const QString& variable) const;
    /// The card's cross-replica read line ("Cross-replica read returns 3 (SUM of the copies)").
    QString readText(const QString& variable) const;
    /// True when `variable`'s card lies wholly inside the visible part of the cards' scroll area.
    bool cardInView(const QString& variable) const;
    /// True while `variable`'s card shows the "copies differ" hint.
    bool divergenceShown(const QString& variable) const;
    /// The newest log entry as plain text (title, outcome, rule on three lines); empty if none.
    QString lastLogEntry() const;
    bool lastLogEntryIsError() const;
    int logEntryCount() const;
    /// True while the "Create a variable to start" message stands in for the cards.
    bool emptyStateShown() const;

    VariableForm& form() const { return *m_form; }
    OpBar& opBar() const { return *m_opBar; }
    OpLog& log() const { return *m_log; }
    VariableCard* card(const QString& variable) const;
    QPushButton& clearLogButton() const { return *m_clearLog; }
    QPushButton& resetButton() const { return *m_reset; }

private:
    struct LabVariable {
        DistributedVariable variable;
        VariableCard* card;
    };
    QWidget* buildSetupColumn();
    QWidget* buildCardsArea();
    QWidget* buildLogArea();
    LabVariable* find(const QString& name);
    const LabVariable* find(const QString& name) const;
    void logEntry(const QString& title, const QString& outcome, const QString& rule, bool error);
    void onTargetChanged(const QString& name);
    void updateEmptyState();

    std::vector<LabVariable> m_variables;
    VariableForm* m_form;
    OpBar* m_opBar;
    OpLog* m_log;
    QWidget* m_opGroup;
    QVBoxLayout* m_cardsLayout;
    QScrollArea* m_cardsScroll = nullptr;
    QLabel* m_emptyCards;
    QPushButton* m_clearLog;
    QPushButton* m_reset;
    int m_entryNumber = 0;
};

}  // namespace distlab::ui
