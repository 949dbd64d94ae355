#include "views/network_view.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QStaticText>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "bridge/session_controller.hpp"
#include "panels/explanations.hpp"

#include <distlab/telemetry/task_telemetry.hpp>

namespace distlab::ui {

namespace {
const QColor kPositive(0x08, 0x77, 0xbd);
const QColor kNegative(0xf5, 0x93, 0x22);
constexpr double kTopMargin = 40.0;
constexpr double kBottomMargin = 26.0;
constexpr double kNodeRadius = 7.0;
constexpr int kEdgeLevels = 12;           // edge widths and shades: enough steps that they read as continuous
constexpr qint64 kRepaintPeriodMs = 250;  // weights drift slowly: four pictures a second follow them
}  // namespace

NetworkView::NetworkView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("model.diagram"));
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);  // paintEvent fills every pixel
    setMinimumSize(200, 160);
    connect(&controller, &SessionController::snapshotChanged, this, &NetworkView::refreshIfVisible);
    connect(&controller, &SessionController::runReplaced, this, [this] {
        m_snapshot.reset();
        m_drawnStep = -1;
        update();
    });
}

bool NetworkView::refresh() {
    auto snapshot = controller().snapshot();
    if (snapshot == m_snapshot && !invalid()) return false;
    // While training runs, at most one new picture per kRepaintPeriodMs: a later tick takes the
    // snapshot then, so the newest weights are always shown in the end.
    if (!invalid() && m_snapshot && m_repainted.isValid() && m_repainted.elapsed() < kRepaintPeriodMs) return false;
    m_snapshot = snapshot;
    m_kernelIndex.clear();
    m_biasIndex.clear();
    m_layerNames.clear();
    if (m_snapshot) {
        // A top-level dense layer's parameters are "<layer>/kernel" [inputs, units] and "<layer>/bias"
        // [units]; other layers (e.g. residual blocks) draw as nodes without edges.
        const auto& widths = m_snapshot->layerWidths;
        const std::size_t layers = widths.empty() ? 0 : widths.size() - 1;
        m_kernelIndex.assign(layers, -1);
        m_biasIndex.assign(layers, -1);
        const auto& configLayers = controller().config().model.layers;
        for (std::size_t layer = 0; layer < layers; ++layer) {
            QString name = QStringLiteral("layer_%1").arg(layer);
            if (layer < configLayers.size()) {
                const LayerConfig& config = configLayers[layer];
                name = QString::fromStdString(config.name.empty() ? config.type + "_" + std::to_string(layer) : config.name);
            }
            m_layerNames.append(name);
            for (std::size_t i = 0; i < m_snapshot->parameters.size(); ++i) {
                const ParameterInfo& info = m_snapshot->parameters[i];
                const QString parameter = QString::fromStdString(info.name);
                if (parameter == name + QLatin1String("/kernel") && info.shape.size() == 2 && info.shape[0] == widths[layer] &&
                    info.shape[1] == widths[layer + 1]) {
                    m_kernelIndex[layer] = static_cast<int>(i);
                }
                if (parameter == name + QLatin1String("/bias") && info.shape.size() == 1 && info.shape[0] == widths[layer + 1]) {
                    m_biasIndex[layer] = static_cast<int>(i);
                }
            }
        }
        m_drawnStep = m_snapshot->step;
    }
    // Repaint only when the picture changes: weights drift slowly, and most snapshots move no
    // edge to another shade or width and no bias across zero.
    computeLook(m_nextLook);
    if (invalid() || m_nextLook != m_look) {
        std::swap(m_look, m_nextLook);
        update();
        m_repainted.start();
    }
    return m_snapshot != nullptr;
}

float NetworkView::largestWeight() const {
    // One scale for every edge so widths compare across layers.
    const int columns = static_cast<int>(m_snapshot->layerWidths.size());
    float largest = 1e-6f;
    for (int layer = 0; layer + 1 < columns; ++layer) {
        const float* kernel = kernelOf(layer);
        if (kernel == nullptr) continue;
        const auto units = m_snapshot->layerWidths[static_cast<std::size_t>(layer + 1)];
        for (int i = 0; i < shownNodes(layer); ++i)
            for (int j = 0; j < shownNodes(layer + 1); ++j) largest = std::max(largest, std::abs(kernel[i * units + j]));
    }
    return largest;
}

int NetworkView::edgeLevel(float weight, float largest) {
    const double share = std::min(1.0, static_cast<double>(std::abs(weight) / largest));
    return std::min(kEdgeLevels - 1, static_cast<int>(share * kEdgeLevels));
}

void NetworkView::computeLook(std::vector<std::uint8_t>& look) const {
    look.clear();
    if (!m_snapshot) return;
    const int columns = static_cast<int>(m_snapshot->layerWidths.size());
    const float largest = largestWeight();
    for (int layer = 0; layer + 1 < columns; ++layer) {
        const float* kernel = kernelOf(layer);
        const float* bias = biasOf(layer);
        const auto units = m_snapshot->layerWidths[static_cast<std::size_t>(layer + 1)];
        if (kernel != nullptr) {
            for (int i = 0; i < shownNodes(layer); ++i)
                for (int j = 0; j < shownNodes(layer + 1); ++j) {
                    const float weight = kernel[i * units + j];
                    look.push_back(static_cast<std::uint8_t>(2 * edgeLevel(weight, largest) + (weight >= 0 ? 0 : 1)));
                }
        }
        if (bias != nullptr)
            for (int row = 0; row < shownNodes(layer + 1); ++row) look.push_back(bias[row] >= 0 ? 2 : 3);
        else
            look.push_back(4);
    }
}

int NetworkView::shownNodes(int column) const {
    const auto width = m_snapshot->layerWidths[static_cast<std::size_t>(column)];
    return static_cast<int>(std::min<std::int64_t>(width, kMaxNodesShown));
}

QPointF NetworkView::nodePosition(int column, int row) const {
    const int columns = static_cast<int>(m_snapshot->layerWidths.size());
    const double left = 40.0;
    const double usableWidth = std::max(10.0, width() - 2 * left);
    const double x = columns <= 1 ? width() / 2.0 : left + usableWidth * column / (columns - 1);
    const int rows = shownNodes(column);
    const double usableHeight = std::max(10.0, height() - kTopMargin - kBottomMargin);
    const double spacing = std::min(usableHeight / std::max(1, rows), 44.0);
    const double top = kTopMargin + (usableHeight - spacing * rows) / 2.0 + spacing / 2.0;
    return QPointF(x, top + row * spacing);
}

const float* NetworkView::kernelOf(int layer) const {
    if (layer < 0 || layer >= static_cast<int>(m_kernelIndex.size()) || m_kernelIndex[static_cast<std::size_t>(layer)] < 0) return nullptr;
    const ParameterInfo& info = m_snapshot->parameters[static_cast<std::size_t>(m_kernelIndex[static_cast<std::size_t>(layer)])];
    return m_snapshot->values.data() + info.offset;
}

const float* NetworkView::biasOf(int layer) const {
    if (layer < 0 || layer >= static_cast<int>(m_biasIndex.size()) || m_biasIndex[static_cast<std::size_t>(layer)] < 0) return nullptr;
    const ParameterInfo& info = m_snapshot->parameters[static_cast<std::size_t>(m_biasIndex[static_cast<std::size_t>(layer)])];
    return m_snapshot->values.data() + info.offset;
}

void NetworkView::paintEdges(QPainter& painter) {
    // Edges in a few strength levels, each drawn with one opaque pen (a translucent one would hand
    // every long line's fill to the raster engine's worker threads), weakest first so the strong
    // weights stay on top.
    const int columns = static_cast<int>(m_snapshot->layerWidths.size());
    const float largest = largestWeight();
    m_edgeGroups.resize(2 * kEdgeLevels);
    for (auto& group : m_edgeGroups) group.clear();
    for (int layer = 0; layer + 1 < columns; ++layer) {
        const float* kernel = kernelOf(layer);
        if (kernel == nullptr) continue;
        const auto units = m_snapshot->layerWidths[static_cast<std::size_t>(layer + 1)];
        for (int i = 0; i < shownNodes(layer); ++i) {
            for (int j = 0; j < shownNodes(layer + 1); ++j) {
                const float weight = kernel[i * units + j];
                const int level = edgeLevel(weight, largest);
                m_edgeGroups[static_cast<std::size_t>(2 * level + (weight >= 0 ? 0 : 1))].emplace_back(nodePosition(layer, i),
                                                                                                       nodePosition(layer + 1, j));
            }
        }
    }
    const QColor background = palette().base().color();
    for (int level = 0; level < kEdgeLevels; ++level) {
        const double share = (level + 0.5) / kEdgeLevels;
        const double opacity = 0.25 + 0.75 * share;
        for (int sign = 0; sign < 2; ++sign) {
            const auto& lines = m_edgeGroups[static_cast<std::size_t>(2 * level + sign)];
            if (lines.empty()) continue;
            const QColor& ink = sign == 0 ? kPositive : kNegative;
            const QColor color = QColor::fromRgbF(static_cast<float>(ink.redF() * opacity + background.redF() * (1 - opacity)),
                                                  static_cast<float>(ink.greenF() * opacity + background.greenF() * (1 - opacity)),
                                                  static_cast<float>(ink.blueF() * opacity + background.blueF() * (1 - opacity)));
            painter.setPen(QPen(color, 0.4 + 4.0 * share));
            painter.drawLines(lines.data(), static_cast<int>(lines.size()));
        }
    }
}

void NetworkView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    painter.setPen(palette().text().color());
    if (!m_snapshot || m_snapshot->layerWidths.size() < 2) {
        const QString text = controller().cluster() != nullptr
                                 ? tr("A cluster's weights live in its processes: the diagram appears once the coordinator task "
                                      "sends them, as it trains (for models of up to %L1 parameters).")
                                       .arg(kMaxSnapshotValues)
                                 : tr("The network diagram appears here once the run has loaded: one column per layer, "
                                      "edges coloured by the weight's sign and as wide as its magnitude.");
        painter.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, text);
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing, true);
    const int columns = static_cast<int>(m_snapshot->layerWidths.size());
    paintEdges(painter);
    for (int column = 0; column < columns; ++column) {
        const float* bias = column == 0 ? nullptr : biasOf(column - 1);
        for (int row = 0; row < shownNodes(column); ++row) {
            QColor fill = palette().window().color();
            if (bias != nullptr) fill = bias[row] >= 0 ? kPositive.lighter(150) : kNegative.lighter(130);
            painter.setPen(QPen(palette().text().color(), 1.0));
            painter.setBrush(fill);
            painter.drawEllipse(nodePosition(column, row), kNodeRadius, kNodeRadius);
        }
    }
    paintLabels(painter);
}

void NetworkView::paintLabels(QPainter& painter) {
    // Every column's name and activation above it and its width below: laid out (shaped, elided)
    // only when they or the size change, then drawn as static text.
    const int columns = static_cast<int>(m_snapshot->layerWidths.size());
    const auto& config = controller().config();
    QStringList titles;
    QStringList activations;
    QString key = QStringLiteral("%1x%2 %3").arg(width()).arg(height()).arg(font().key());
    for (int column = 0; column < columns; ++column) {
        titles.append(column == 0 ? tr("inputs") : m_layerNames.value(column - 1));
        activations.append(column > 0 && column - 1 < static_cast<int>(config.model.layers.size())
                               ? QString::fromLatin1(configName(config.model.layers[static_cast<std::size_t>(column - 1)].activation))
                               : QString());
        key += QLatin1Char('|') + titles.back() + QLatin1Char('|') + activations.back() + QLatin1Char('|') +
               QString::number(m_snapshot->layerWidths[static_cast<std::size_t>(column)]);
    }
    if (key != m_labelsKey) {
        m_labelsKey = key;
        m_labels.clear();
        const QFontMetrics metrics(font());
        // Two short lines (name, activation), elided to the room between columns.
        const double room = columns > 1 ? std::min(160.0, (width() - 80.0) / (columns - 1) - 6.0) : 160.0;
        auto add = [&](const QString& text, double centreX, double top, double height) {
            Label label;
            label.text.setTextFormat(Qt::PlainText);
            label.text.setText(text);
            label.text.prepare(QTransform(), font());
            const QSizeF size = label.text.size();
            // Centred under its column, but kept inside the view (the outer columns sit near the edges).
            const double left = std::clamp(centreX - size.width() / 2.0, 2.0, std::max(2.0, width() - size.width() - 2.0));
            label.at = QPointF(left, top + (height - size.height()) / 2.0);
            m_labels.push_back(std::move(label));
        };
        for (int column = 0; column < columns; ++column) {
            const double x = nodePosition(column, 0).x();
            add(metrics.elidedText(titles[column], Qt::ElideRight, static_cast<int>(room)), x, 2.0, 15.0);
            add(metrics.elidedText(activations[column], Qt::ElideRight, static_cast<int>(room)), x, 16.0, 15.0);
            const auto total = m_snapshot->layerWidths[static_cast<std::size_t>(column)];
            QString count = QString::number(total);
            if (total > kMaxNodesShown) count = tr("%1 (%2 shown)").arg(total).arg(kMaxNodesShown);
            if (metrics.horizontalAdvance(count) > room) count = QString::number(total);  // the hover tells the rest
            add(count, x, height() - kBottomMargin + 4.0, 18.0);
        }
    }
    painter.setPen(palette().text().color());
    for (const Label& label : m_labels) painter.drawStaticText(label.at, label.text);
}

QString NetworkView::describeNode(int column, int row) const {
    if (!m_snapshot || column < 0 || column >= static_cast<int>(m_snapshot->layerWidths.size()) || row < 0 || row >= shownNodes(column)) {
        return {};
    }
    if (column == 0) return tr("input feature %1").arg(row);
    const float* kernel = kernelOf(column - 1);
    const float* bias = biasOf(column - 1);
    const auto inputs = m_snapshot->layerWidths[static_cast<std::size_t>(column - 1)];
    const auto units = m_snapshot->layerWidths[static_cast<std::size_t>(column)];
    QString text = tr("%1 unit %2 (replica 0, step %3)").arg(m_layerNames.value(column - 1)).arg(row).arg(m_snapshot->step);
    if (bias != nullptr) text += tr("\nbias: %1").arg(bias[row], 0, 'g', 5);
    if (kernel != nullptr) {
        text += tr("\nincoming weights:");
        const std::int64_t listed = std::min<std::int64_t>(inputs, 8);
        for (std::int64_t i = 0; i < listed; ++i) text += QStringLiteral(" %1").arg(kernel[i * units + row], 0, 'g', 3);
        if (inputs > listed) text += tr(" … (%1 in all)").arg(inputs);
    }
    return text;
}

bool NetworkView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_snapshot) {
        auto* help = static_cast<QHelpEvent*>(event);
        for (int column = 0; column < static_cast<int>(m_snapshot->layerWidths.size()); ++column) {
            for (int row = 0; row < shownNodes(column); ++row) {
                const QPointF delta = nodePosition(column, row) - help->pos();
                if (delta.x() * delta.x() + delta.y() * delta.y() <= (kNodeRadius + 3) * (kNodeRadius + 3)) {
                    QToolTip::showText(help->globalPos(), describeNode(column, row), this);
                    return true;
                }
            }
        }
        QToolTip::hideText();
        return true;
    }
    return LiveView::event(event);
}

}  // namespace distlab::ui
