#pragma once
// The variable lab's op bar: which variable, the context (replica or cross-replica), the op
// (assign, assign_add, assign_sub, read) and its argument: one value per replica (a per-replica
// tensor), one and the same value on every replica (a non-distributed value), or one value in
// cross-replica context. It only builds the request; the panel applies it. GUI thread only.
#include <QStringList>
#include <QWidget>

#include <vector>

#include <distlab/distribute/distributed_variable.hpp>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;

namespace distlab::ui {

class OpBar : public QWidget {
    Q_OBJECT

public:
    /// How the argument of a replica-context update is given (item data of argumentBox()).
    enum class Argument { PerReplica = 0, SameOnEveryReplica = 1 };

    explicit OpBar(QWidget* parent = nullptr);

    /// Lists the variables an op can target; keeps the current one when it is still listed.
    void setVariables(const QStringList& names);
    /// Makes `name` the target (emits targetChanged when it changes).
    void selectVariable(const QString& name);
    /// Shows one per-replica value box per replica of the target (1..8).
    void setReplicas(int replicas);

    QString target() const;
    /// The request the controls describe now.
    VariableOpRequest request() const;

    QComboBox& variableBox() const { return *m_variable; }
    QComboBox& contextBox() const { return *m_context; }
    QComboBox& opBox() const { return *m_op; }
    QComboBox& argumentBox() const { return *m_argument; }
    /// Replica `replica`'s value box (0..7; only the first replicas are shown).
    QDoubleSpinBox& replicaValueBox(int replica) const { return *m_perReplica.at(static_cast<std::size_t>(replica)).box; }
    /// The one value of a cross-replica or "same on every replica" update.
    QDoubleSpinBox& valueBox() const { return *m_value; }
    QPushButton& applyButton() const { return *m_apply; }

signals:
    void targetChanged(const QString& name);
    void applyRequested();

private:
    struct ReplicaValue {
        QWidget* container = nullptr;
        QDoubleSpinBox* box = nullptr;
    };
    void updateEditors();
    UpdateContext context() const;
    VariableOp op() const;
    bool perReplica() const;

    QComboBox* m_variable;
    QComboBox* m_context;
    QComboBox* m_op;
    QComboBox* m_argument;
    QLabel* m_argumentLabel;
    std::vector<ReplicaValue> m_perReplica;
    QWidget* m_valueContainer;
    QDoubleSpinBox* m_value;
    QLabel* m_noArgument;
    QLabel* m_hint;
    QPushButton* m_apply;
    int m_replicas = 2;
};

}  // namespace distlab::ui
