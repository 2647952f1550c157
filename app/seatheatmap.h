// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "seatmapmodel.h"

#include <QColor>
#include <QPointer>
#include <QQuickPaintedItem>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace marquee::app {

/**
 * @brief The manager's occupancy heat map: a show's seats drawn in their places, each sold seat coloured by how
 * early it sold (hot = first), unsold seats dim, held seats outlined. A desk view of a few hundred to a few
 * thousand seats, so QPainter is enough (the kiosk's SeatMap item is the scene-graph one for 40,000 seats).
 */
class SeatHeatMapItem : public QQuickPaintedItem
{
    Q_OBJECT
    QML_NAMED_ELEMENT(SeatHeatMap)
    Q_PROPERTY(marquee::app::SeatMapModel *model READ model WRITE setModel NOTIFY modelChanged)
    /** @brief seat_id → 0..1 (1 = sold first). */
    Q_PROPERTY(QVariantMap heat READ heat WRITE setHeat NOTIFY heatChanged)
    Q_PROPERTY(QColor coldColor MEMBER m_cold NOTIFY colorsChanged)
    Q_PROPERTY(QColor warmColor MEMBER m_warm NOTIFY colorsChanged)
    Q_PROPERTY(QColor hotColor MEMBER m_hot NOTIFY colorsChanged)
    Q_PROPERTY(QColor emptyColor MEMBER m_empty NOTIFY colorsChanged)
    Q_PROPERTY(QColor stageColor MEMBER m_stage NOTIFY colorsChanged)
public:
    explicit SeatHeatMapItem(QQuickItem *parent = nullptr);

    SeatMapModel *model() const { return m_model; }
    void setModel(SeatMapModel *model);
    QVariantMap heat() const { return m_heat; }
    void setHeat(const QVariantMap &heat);
    void paint(QPainter *painter) override;

    /** @brief The colour of a heat value (0..1) on the cold → warm → hot scale. */
    Q_INVOKABLE QColor colorFor(qreal value) const;

Q_SIGNALS:
    void modelChanged();
    void heatChanged();
    void colorsChanged();

private:
    QPointer<SeatMapModel> m_model;
    QVariantMap m_heat;
    QColor m_cold = QColor(0x3B82F6);
    QColor m_warm = QColor(0xF5B82E);
    QColor m_hot = QColor(0xFF4F5A);
    QColor m_empty = QColor(0x2A3350);
    QColor m_stage = QColor(0xDDE3F0);
};

} // namespace marquee::app
