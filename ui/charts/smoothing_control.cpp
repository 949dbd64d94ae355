#include "charts/smoothing_control.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>

namespace distlab::ui {

SmoothingControl::SmoothingControl(double weight, QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("smoothingControl"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setRange(0, 99);
    m_slider->setMaximumWidth(240);
    m_slider->setAccessibleName(tr("Smoothing"));
    m_slider->setToolTip(
        tr("TensorBoard's smoothing: each point is an exponential moving average of the ones "
           "before it with this weight (0: the raw values)"));
    m_value = new QLabel(this);
    m_value->setMinimumWidth(36);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Smoothing"), this));
    layout->addWidget(m_slider);
    layout->addWidget(m_value);
    connect(m_slider, &QSlider::valueChanged, this, [this] {
        m_value->setText(QString::number(this->weight(), 'f', 2));
        emit weightChanged(this->weight());
    });
    setWeight(weight);
    m_value->setText(QString::number(this->weight(), 'f', 2));
}

double SmoothingControl::weight() const { return m_slider->value() / 100.0; }

void SmoothingControl::setWeight(double weight) { m_slider->setValue(static_cast<int>(weight * 100.0 + 0.5)); }

}  // namespace distlab::ui
