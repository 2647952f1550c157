// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "seatmapmodel.h"

#include <QElapsedTimer>
#include <QImage>
#include <QPointer>
#include <QQuickItem>
#include <vector>

class QSGGeometryNode;

namespace marquee::app {

/**
 * @brief The seat map: the seats of a show in scene-graph geometry nodes of at most kSeatsPerNode seats each
 * (per-vertex colours, a fixed number of vertices per seat so that a status change rewrites only that seat's
 * vertices and re-uploads only its node). Zoom and pan only change a transform node. Wheel and pinch zoom, drag to pan, tap to select.
 *
 * Without a GPU (the software scene graph: kiosks without graphics drivers, offscreen tests) the same shapes are
 * painted with QPainter into one texture instead.
 *
 * Touch first: a seat can be tapped only at a zoom where it is drawn at least minimumSeatPixels wide. Below that
 * zoom a tap picks a section (a stadium block: the map zooms to it, seats at touch size) or, in a layout without
 * sections, zooms in where it landed. Seats picked for the customer (best available) are panned and zoomed to.
 *
 * Shapes say what a seat is without colour: available = filled square in its tier colour, wheelchair space =
 * octagon, companion = square with a dark centre, selected = larger square with a white centre, held = hollow
 * square, booked = a cross, just taken by someone else = thick red ring.
 */
class SeatMapItem : public QQuickItem
{
    Q_OBJECT
    QML_NAMED_ELEMENT(SeatMap)
    /** @brief The seats to draw. */
    Q_PROPERTY(marquee::app::SeatMapModel *model READ model WRITE setModel NOTIFY modelChanged)
    /** @brief Layout units → pixels. */
    Q_PROPERTY(qreal viewScale READ viewScale NOTIFY viewChanged)
    /** @brief Where layout (0,0) is, in item pixels. */
    Q_PROPERTY(qreal viewX READ viewX NOTIFY viewChanged)
    Q_PROPERTY(qreal viewY READ viewY NOTIFY viewChanged)
    /** @brief Colour of the screen/stage edge. */
    Q_PROPERTY(QColor stageColor READ stageColor WRITE setStageColor NOTIFY stageColorChanged)
    /** @brief Colour of selected seats. */
    Q_PROPERTY(QColor selectedColor READ selectedColor WRITE setSelectedColor NOTIFY stageColorChanged)
    /** @brief Typical distance between neighbouring seats of a row, in layout units (a drawn seat is 0.8 of it). */
    Q_PROPERTY(qreal seatPitch READ seatPitch NOTIFY viewChanged)
    /** @brief The smallest drawn seat, in pixels, that a tap may select (48: a fingertip). */
    Q_PROPERTY(qreal minimumSeatPixels READ minimumSeatPixels WRITE setMinimumSeatPixels NOTIFY viewChanged)
    /** @brief How wide a seat is drawn at the current zoom, in pixels. */
    Q_PROPERTY(qreal seatPixels READ seatPixels NOTIFY viewChanged)
    /** @brief Whether a tap selects a seat now (seatPixels >= minimumSeatPixels) rather than a section. */
    Q_PROPERTY(bool seatsTappable READ seatsTappable NOTIFY viewChanged)
    /** @brief Number of seat-geometry rebuilds (for tests and benchmarks). */
    Q_PROPERTY(int geometryUploads READ geometryUploads NOTIFY viewChanged)
    /** @brief Number of seat geometry nodes re-uploaded, summed over all rebuilds (GPU scene graph only). */
    Q_PROPERTY(int nodeUploads READ nodeUploads NOTIFY viewChanged)
public:
    /** @brief Seats per geometry node: 24 vertices each stays below 65,536 (16-bit indices). */
    static constexpr int kSeatsPerNode = 2048;

    explicit SeatMapItem(QQuickItem *parent = nullptr);

    SeatMapModel *model() const { return m_model; }
    void setModel(SeatMapModel *model);
    qreal viewScale() const { return m_scale; }
    qreal viewX() const { return m_offset.x(); }
    qreal viewY() const { return m_offset.y(); }
    QColor stageColor() const { return m_stageColor; }
    void setStageColor(const QColor &color);
    QColor selectedColor() const { return m_selectedColor; }
    void setSelectedColor(const QColor &color);
    int geometryUploads() const { return m_uploads; }
    int nodeUploads() const { return m_nodeUploads; }
    qreal seatPitch() const { return m_pitch; }
    qreal minimumSeatPixels() const { return m_minimumSeatPixels; }
    void setMinimumSeatPixels(qreal pixels);
    qreal seatPixels() const { return 2 * m_seatHalf * m_scale; }
    bool seatsTappable() const { return seatPixels() >= m_minimumSeatPixels - 0.01; }

    /** @brief The seat under an item position, or an empty string. */
    Q_INVOKABLE QString seatAt(qreal x, qreal y) const;
    /** @brief Where a seat is drawn, in item pixels (centre). */
    Q_INVOKABLE QPointF seatPosition(const QString &seatId) const;
    Q_INVOKABLE void zoomBy(qreal factor, qreal centreX, qreal centreY);
    Q_INVOKABLE void zoomIn() { zoomBy(1.5, width() / 2, height() / 2); }
    Q_INVOKABLE void zoomOut() { zoomBy(1 / 1.5, width() / 2, height() / 2); }
    /** @brief Fit the whole layout into the item. */
    Q_INVOKABLE void resetView();
    Q_INVOKABLE void panBy(qreal dx, qreal dy);
    /** @brief The section under an item position (the section of the nearest seat, if near), or an empty string. */
    Q_INVOKABLE QString sectionAt(qreal x, qreal y) const;
    /** @brief Where a section is drawn, in item pixels (around its seats' centres); empty for an unknown name. */
    Q_INVOKABLE QRectF sectionRect(const QString &name) const;
    /** @brief Zoom to a section, its seats at least minimumSeatPixels wide, and centre it. */
    Q_INVOKABLE void zoomToSection(const QString &name);
    /** @brief Pan and zoom so that @p seatIds are in view at a zoom where they can be tapped. */
    Q_INVOKABLE void showSeats(const QStringList &seatIds);

Q_SIGNALS:
    void modelChanged();
    void viewChanged();
    void stageColorChanged();
    /** @brief A seat was tapped (the screen decides what that means). */
    void seatTapped(const QString &seatId);
    /** @brief A section was tapped at a zoom where seats are too small to tap; the map zoomed to it. */
    void sectionTapped(const QString &name);

protected:
    QSGNode *updatePaintNode(QSGNode *old, UpdatePaintNodeData *) override;
    void geometryChange(const QRectF &newGeometry, const QRectF &oldGeometry) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void touchEvent(QTouchEvent *event) override;

private:
    void onLayoutReset();
    void markSeatsDirty();
    void pointerPress(QPointF position);
    void pointerMove(QPointF position);
    void pointerRelease(QPointF position);
    void clampView();
    /** @brief The same picture with QPainter into a texture, for the software scene graph (no GPU, offscreen). */
    QSGNode *updateSoftwareNode(QSGNode *old);
    qreal fitScale() const;
    /** @brief The zoom at which a seat is drawn minimumSeatPixels wide. */
    qreal tapScale() const { return m_minimumSeatPixels / (2 * m_seatHalf); }
    qreal maxScale() const;
    /** @brief Centre @p layoutRect, at the zoom where it fits if that is at least tapScale(), else at tapScale(). */
    void showLayoutRect(const QRectF &layoutRect);

    QPointer<SeatMapModel> m_model;
    qreal m_scale = 1;
    QPointF m_offset;
    float m_seatHalf = 4; // half the drawn seat size, layout units
    float m_pitch = 10;
    qreal m_minimumSeatPixels = 48;
    bool m_layoutDirty = true;
    bool m_seatsDirty = true;
    bool m_viewInitialised = false;
    std::vector<quint32> m_drawnKeys; // what each seat's vertices show now
    QColor m_stageColor = QColor(0xDDE3F0);
    QColor m_selectedColor = QColor(0xFF4F8B);
    int m_uploads = 0;
    int m_nodeUploads = 0;
    // The software path's canvases, kept between frames (touched only during sync). A fresh window-sized image
    // per frame cost ~30 ms of page faults whenever malloc handed it new pages (the first frames, the first zoom
    // step; marquee-appbench, docs/perf/journal.md, "Quiet re-run after the canvas fix"). Two, used in turn: the
    // texture on screen shares the pixels of the one painted last frame (QPixmap::fromImage does not copy), so
    // painting it again would detach it into a fresh copy.
    QImage m_canvases[2];
    int m_nextCanvas = 0;

    // pointer state
    QPointF m_pressPosition;
    QPointF m_lastPosition;
    bool m_pressed = false;
    bool m_dragging = false;
    qreal m_pinchDistance = 0;
};

} // namespace marquee::app
