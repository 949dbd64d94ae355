#include "views/worker_controls.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>

#include <distlab/config/run_limits.hpp>

#include "panels/explanations.hpp"

namespace distlab::ui {

namespace {
constexpr int kSliderSteps = 100;  // slider position p means speed p / 100, from 10 (0.1) to 100 (1.0)

QString speedText(int position) { return QStringLiteral("×%1").arg(position / double(kSliderSteps), 0, 'f', 2); }
}  // namespace

WorkerControls::WorkerControls(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
}

void WorkerControls::setWorkerCount(int workers) {
    if (workers == workerCount()) return;
    for (Column& column : m_columns) delete column.box;
    m_columns.clear();
    auto* row = static_cast<QHBoxLayout*>(layout());
    for (int w = 0; w < workers; ++w) {
        Column column;
        column.box = new QWidget(this);
        column.speed = new QSlider(Qt::Horizontal, column.box);
        column.speed->setObjectName(QStringLiteral("workerSpeedSlider%1").arg(w));
        column.speed->setRange(static_cast<int>(std::lround(run_limits::kMinWorkerSpeed * kSliderSteps)),
                               static_cast<int>(std::lround(run_limits::kMaxWorkerSpeed * kSliderSteps)));
        column.speed->setValue(kSliderSteps);
        column.speed->setMinimumWidth(40);
        column.speed->setAccessibleName(tr("Speed of worker %1").arg(w));
        setExplainKey(column.speed, QStringLiteral("strategy.worker_speed"));
        column.speedText = new QLabel(speedText(kSliderSteps), column.box);
        column.pause = new QPushButton(tr("Pause"), column.box);
        column.pause->setObjectName(QStringLiteral("workerPauseButton%1").arg(w));
        column.pause->setCheckable(true);
        column.pause->setToolTip(tr("Pause worker %1: it stops pushing gradients; the others go on").arg(w));
        column.kill = new QPushButton(tr("Kill"), column.box);
        column.kill->setObjectName(QStringLiteral("workerKillButton%1").arg(w));
        column.kill->setToolTip(tr("Kill worker %1 for the rest of the run: its unfinished batch is redone by another worker").arg(w));
        for (QPushButton* button : {column.pause, column.kill}) button->setMinimumWidth(20);

        auto* speedRow = new QHBoxLayout();
        speedRow->setSpacing(2);
        speedRow->addWidget(column.speed, 1);
        speedRow->addWidget(column.speedText);
        auto* buttons = new QHBoxLayout();
        buttons->setSpacing(2);
        buttons->addWidget(column.pause);
        buttons->addWidget(column.kill);
        auto* box = new QVBoxLayout(column.box);
        box->setContentsMargins(4, 0, 4, 0);
        box->setSpacing(2);
        box->addLayout(speedRow);
        box->addLayout(buttons);
        row->addWidget(column.box, 1);

        connect(column.speed, &QSlider::valueChanged, this, [this, w, label = column.speedText](int position) {
            label->setText(speedText(position));
            emit speedChanged(w, position / double(kSliderSteps));
        });
        connect(column.pause, &QPushButton::toggled, this, [this, w, button = column.pause](bool paused) {
            button->setText(paused ? tr("Resume") : tr("Pause"));
            emit pauseToggled(w, paused);
        });
        connect(column.kill, &QPushButton::clicked, this, [this, w] { emit killRequested(w); });
        m_columns.push_back(column);
    }
}

void WorkerControls::showStatus(int worker, const WorkerStatus& status) {
    if (worker < 0 || worker >= workerCount()) return;
    const Column& column = m_columns[static_cast<std::size_t>(worker)];
    if (!column.speed->isSliderDown()) {
        const QSignalBlocker blocker(column.speed);
        const int position = static_cast<int>(std::lround(status.speed * kSliderSteps));
        column.speed->setValue(position);
        column.speedText->setText(speedText(position));
    }
    {
        const QSignalBlocker blocker(column.pause);
        column.pause->setChecked(status.paused);
        column.pause->setText(status.paused ? tr("Resume") : tr("Pause"));
    }
    for (QWidget* control : {static_cast<QWidget*>(column.speed), static_cast<QWidget*>(column.pause), static_cast<QWidget*>(column.kill)})
        control->setEnabled(status.alive);
}

}  // namespace distlab::ui
