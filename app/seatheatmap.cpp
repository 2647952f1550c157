// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seatheatmap.h"

#include <QPainter>
#include <QPainterPath>

namespace marquee::app {

SeatHeatMapItem::SeatHeatMapItem(QQuickItem *parent)
    : QQuickPaintedItem(parent)
{
    setAntialiasing(true);
    connect(this, &SeatHeatMapItem::colorsChanged, this, [this] { update(); });
}

void SeatHeatMapItem::setModel(SeatMapModel *model)
{
    if (m_model == model)
        return;
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    if (m_model) {
        connect(m_model, &SeatMapModel::layoutReset, this, [this] { update(); });
        connect(m_model, &SeatMapModel::statusesChanged, this, [this] { update(); });
        connect(m_model, &SeatMapModel::selectionChanged, this, [this] { update(); });
    }
    Q_EMIT modelChanged();
    update();
}

void SeatHeatMapItem::setHeat(const QVariantMap &heat)
{
    m_heat = heat;
    Q_EMIT heatChanged();
    update();
}

QColor SeatHeatMapItem::colorFor(qreal value) const
{
    const auto mix = [](const QColor &a, const QColor &b, qreal t) {
        return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                                float(a.blueF() + (b.blueF() - a.blueF()) * t));
    };
    value = qBound(0.0, value, 1.0);
    return value < 0.5 ? mix(m_cold, m_warm, value * 2) : mix(m_warm, m_hot, (value - 0.5) * 2);
}

void SeatHeatMapItem::paint(QPainter *painter)
{
    if (!m_model || m_model->seatCount() == 0 || width() <= 0 || height() <= 0)
        return;
    QRectF bounds = m_model->layoutBounds();
    const QRectF stage = m_model->stageRect();
    if (stage.isValid() || !stage.isNull())
        bounds = bounds.united(stage);
    bounds.adjust(-12, -12, 12, 12);
    const qreal scale = qMin(width() / bounds.width(), height() / bounds.height());
    const QPointF offset((width() - bounds.width() * scale) / 2 - bounds.left() * scale, (height() - bounds.height() * scale) / 2 - bounds.top() * scale);
    const auto map = [&](qreal x, qreal y) { return QPointF(offset.x() + x * scale, offset.y() + y * scale); };

    // Seats touching but apart, whatever the layout's pitch.
    const auto &seats = m_model->seats();
    const qreal side = qMax<qreal>(2.0, m_model->seatPitch() * scale * 0.78);

    painter->setRenderHint(QPainter::Antialiasing);
    if (!stage.isNull()) {
        QPen pen(m_stage, qMax<qreal>(2, side / 3), Qt::SolidLine, Qt::RoundCap);
        painter->setPen(pen);
        painter->drawLine(map(stage.left(), stage.bottom()), map(stage.right(), stage.bottom()));
    }
    for (size_t i = 0; i < seats.size(); ++i) {
        const MapSeat &seat = seats[i];
        const QPointF centre = map(seat.x, seat.y);
        const QRectF rect(centre.x() - side / 2, centre.y() - side / 2, side, side);
        const auto heat = m_heat.constFind(seat.seatId);
        if (heat != m_heat.constEnd()) {
            painter->setPen(Qt::NoPen);
            painter->setBrush(colorFor(heat.value().toReal()));
            painter->drawRoundedRect(rect, side / 4, side / 4);
        } else if (seat.status == SeatStatus::Booked) {
            painter->setPen(Qt::NoPen);
            painter->setBrush(m_cold.darker(160));
            painter->drawRoundedRect(rect, side / 4, side / 4);
        } else if (seat.status == SeatStatus::Held || seat.status == SeatStatus::Leased) {
            painter->setPen(QPen(m_warm, qMax<qreal>(1, side / 6)));
            painter->setBrush(Qt::NoBrush);
            painter->drawRoundedRect(rect.adjusted(side / 8, side / 8, -side / 8, -side / 8), side / 4, side / 4);
        } else {
            painter->setPen(Qt::NoPen);
            painter->setBrush(m_empty);
            painter->drawRoundedRect(rect, side / 4, side / 4);
        }
        if (m_model->isSelected(int(i))) {
            painter->setPen(QPen(Qt::white, qMax<qreal>(1.5, side / 5)));
            painter->setBrush(Qt::NoBrush);
            painter->drawRoundedRect(rect, side / 4, side / 4);
        }
    }
}

} // namespace marquee::app
