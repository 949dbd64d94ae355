#pragma once
// The model as a diagram: one column of nodes per layer (inputs first), edges coloured by the
// weight's sign (blue positive, orange negative) with width following its magnitude, redrawn live
// from replica 0's snapshot. Hover a node for its bias and incoming weights.
#include <QElapsedTimer>
#include <QLineF>
#include <QPointF>
#include <QStaticText>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

#include <distlab/telemetry/model_snapshot.hpp>

#include "views/live_view.hpp"

class QPainter;

namespace distlab::ui {

class NetworkView : public LiveView {
    Q_OBJECT

public:
    /// Layers wider than this show their first units and a "+N more" note.
    static constexpr int kMaxNodesShown = 10;

    explicit NetworkView(SessionController& controller, QWidget* parent = nullptr);

    /// The step of the snapshot drawn, or -1 when none.
    std::int64_t drawnStep() const { return m_drawnStep; }
    /// What hovering the node (column, row) shows; empty when there is no such node.
    QString describeNode(int column, int row) const;

protected:
    bool refresh() override;
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    int shownNodes(int column) const;
    QPointF nodePosition(int column, int row) const;
    const float* kernelOf(int layer) const;
    const float* biasOf(int layer) const;
    void paintEdges(QPainter& painter);
    void paintLabels(QPainter& painter);
    float largestWeight() const;
    /// Which of the drawn shades (and widths) an edge of this weight gets.
    static int edgeLevel(float weight, float largest);
    /// What the picture shows: every edge's shade and sign, every node's bias sign.
    void computeLook(std::vector<std::uint8_t>& look) const;

    std::shared_ptr<const ModelSnapshot> m_snapshot;
    std::vector<int> m_kernelIndex;  // per layer: parameter index of its kernel, -1 if none
    std::vector<int> m_biasIndex;
    QStringList m_layerNames;
    std::int64_t m_drawnStep = -1;
    std::vector<std::vector<QLineF>> m_edgeGroups;  // per (strength level, sign); reused every paint
    std::vector<std::uint8_t> m_look;               // of the picture painted (or about to be)
    std::vector<std::uint8_t> m_nextLook;
    struct Label {
        QStaticText text;
        QPointF at;
    };
    std::vector<Label> m_labels;  // laid out for m_labelsKey (size, font, names, widths)
    QString m_labelsKey;
    QElapsedTimer m_repainted;  // since the last change of picture
};

}  // namespace distlab::ui
