// SPDX-License-Identifier: AGPL-3.0-or-later
#include "seatmapitem.h"

#include <QPainter>
#include <QQuickWindow>
#include <QSGFlatColorMaterial>
#include <QSGImageNode>
#include <QSGRendererInterface>
#include <QSGGeometryNode>
#include <QSGTransformNode>
#include <QSGVertexColorMaterial>
#include <algorithm>
#include <cmath>

namespace marquee::app {

namespace {

constexpr int kVerticesPerSeat = 24; // 8 triangles: enough for the largest shape (ring, octagon)
constexpr int kSeatsPerNode = SeatMapItem::kSeatsPerNode;

using Vertex = QSGGeometry::ColoredPoint2D;

struct Rgba {
    uchar r, g, b, a;
};
Rgba rgba(const QColor &c)
{
    return {uchar(c.red()), uchar(c.green()), uchar(c.blue()), 255};
}

class SeatWriter
{
public:
    SeatWriter(Vertex *v, float cx, float cy)
        : m_v(v)
        , m_cx(cx)
        , m_cy(cy)
    {
    }
    ~SeatWriter()
    {
        // Unused vertices collapse onto the centre: degenerate triangles draw nothing.
        while (m_n < kVerticesPerSeat)
            m_v[m_n++].set(m_cx, m_cy, 0, 0, 0, 0);
    }
    void tri(QPointF a, QPointF b, QPointF c, Rgba k)
    {
        if (m_n + 3 > kVerticesPerSeat)
            return;
        for (QPointF p : {a, b, c})
            m_v[m_n++].set(float(m_cx + p.x()), float(m_cy + p.y()), k.r, k.g, k.b, k.a);
    }
    void quad(QPointF a, QPointF b, QPointF c, QPointF d, Rgba k)
    {
        tri(a, b, c, k);
        tri(a, c, d, k);
    }
    void square(float h, Rgba k) { quad({-h, -h}, {h, -h}, {h, h}, {-h, h}, k); }
    void ring(float h, float t, Rgba k)
    {
        quad({-h, -h}, {h, -h}, {h, -h + t}, {-h, -h + t}, k);
        quad({-h, h - t}, {h, h - t}, {h, h}, {-h, h}, k);
        quad({-h, -h + t}, {-h + t, -h + t}, {-h + t, h - t}, {-h, h - t}, k);
        quad({h - t, -h + t}, {h, -h + t}, {h, h - t}, {h - t, h - t}, k);
    }
    void cross(float h, float t, Rgba k)
    {
        const float o = t / 2;
        quad({-h - o, -h + o}, {-h + o, -h - o}, {h + o, h - o}, {h - o, h + o}, k);
        quad({h - o, -h - o}, {h + o, -h + o}, {-h + o, h + o}, {-h - o, h - o}, k);
    }
    void octagon(float h, Rgba k)
    {
        for (int i = 0; i < 8; ++i) {
            const double a0 = (i + 0.5) * M_PI / 4, a1 = (i + 1.5) * M_PI / 4;
            const double r = h * 1.08;
            tri({0, 0}, {r * std::cos(a0), r * std::sin(a0)}, {r * std::cos(a1), r * std::sin(a1)}, k);
        }
    }

private:
    Vertex *m_v;
    float m_cx, m_cy;
    int m_n = 0;
};

enum Shape : quint32 { Available = 1, Wheelchair, Companion, Selected, Held, Booked, Taken };

} // namespace

SeatMapItem::SeatMapItem(QQuickItem *parent)
    : QQuickItem(parent)
{
    setFlag(ItemHasContents, true);
    setAcceptedMouseButtons(Qt::LeftButton);
    setAcceptTouchEvents(true);
    setClip(true);
}

void SeatMapItem::setModel(SeatMapModel *model)
{
    if (m_model == model)
        return;
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    if (m_model) {
        connect(m_model, &SeatMapModel::layoutReset, this, &SeatMapItem::onLayoutReset);
        connect(m_model, &SeatMapModel::statusesChanged, this, &SeatMapItem::markSeatsDirty);
        connect(m_model, &SeatMapModel::selectionChanged, this, &SeatMapItem::markSeatsDirty);
        connect(m_model, &SeatMapModel::highlightChanged, this, &SeatMapItem::markSeatsDirty);
        connect(m_model, &SeatMapModel::seatsPicked, this, &SeatMapItem::showSeats);
    }
    onLayoutReset();
    Q_EMIT modelChanged();
}

void SeatMapItem::setStageColor(const QColor &color)
{
    if (m_stageColor == color)
        return;
    m_stageColor = color;
    m_layoutDirty = true;
    update();
    Q_EMIT stageColorChanged();
}

void SeatMapItem::setSelectedColor(const QColor &color)
{
    if (m_selectedColor == color)
        return;
    m_selectedColor = color;
    m_drawnKeys.assign(m_drawnKeys.size(), 0);
    markSeatsDirty();
    Q_EMIT stageColorChanged();
}

void SeatMapItem::setMinimumSeatPixels(qreal pixels)
{
    if (qFuzzyCompare(m_minimumSeatPixels, pixels) || pixels <= 0)
        return;
    m_minimumSeatPixels = pixels;
    clampView();
    update();
    Q_EMIT viewChanged();
}

void SeatMapItem::onLayoutReset()
{
    m_layoutDirty = true;
    m_seatsDirty = true;
    m_drawnKeys.clear();
    m_viewInitialised = false;
    if (m_model && m_model->seats().size() > 1) {
        m_pitch = float(m_model->seatPitch());
        m_seatHalf = m_pitch * 0.40f;
    }
    resetView();
}

void SeatMapItem::markSeatsDirty()
{
    m_seatsDirty = true;
    update();
}

qreal SeatMapItem::fitScale() const
{
    if (!m_model || m_model->seats().empty() || width() <= 0 || height() <= 0)
        return 1;
    const QRectF bounds = m_model->layoutBounds();
    return std::min(width() / bounds.width(), height() / bounds.height()) * 0.96;
}

void SeatMapItem::resetView()
{
    if (!m_model || m_model->seats().empty() || width() <= 0 || height() <= 0)
        return;
    const QRectF bounds = m_model->layoutBounds();
    m_scale = fitScale();
    m_offset = QPointF(width() / 2 - bounds.center().x() * m_scale, height() / 2 - bounds.center().y() * m_scale);
    m_viewInitialised = true;
    update();
    Q_EMIT viewChanged();
}

void SeatMapItem::clampView()
{
    if (!m_model || m_model->seats().empty())
        return;
    const qreal fit = fitScale();
    m_scale = std::clamp(m_scale, fit * 0.8, maxScale());
    // Keep some of the layout on screen.
    const QRectF bounds = m_model->layoutBounds();
    const QRectF shown(m_offset + bounds.topLeft() * m_scale, bounds.size() * m_scale);
    const qreal marginX = std::min(width() / 2, shown.width() / 2), marginY = std::min(height() / 2, shown.height() / 2);
    if (shown.right() < marginX)
        m_offset.rx() += marginX - shown.right();
    if (shown.left() > width() - marginX)
        m_offset.rx() -= shown.left() - (width() - marginX);
    if (shown.bottom() < marginY)
        m_offset.ry() += marginY - shown.bottom();
    if (shown.top() > height() - marginY)
        m_offset.ry() -= shown.top() - (height() - marginY);
}

qreal SeatMapItem::maxScale() const
{
    // From a little smaller than the whole room down to a seat about 72 px wide, and always to touch size.
    return std::max({fitScale() * 1.2, 90.0 / m_pitch, tapScale() * 1.25});
}

void SeatMapItem::showLayoutRect(const QRectF &layoutRect)
{
    if (!m_model || m_model->seats().empty() || width() <= 0 || height() <= 0)
        return;
    const QRectF rect = layoutRect.adjusted(-m_pitch, -m_pitch, m_pitch, m_pitch);
    const qreal fits = std::min(width() / rect.width(), height() / rect.height()) * 0.9;
    // Not closer than needed: touch size, a little more when the whole rectangle still fits.
    m_scale = std::clamp(fits, tapScale(), std::max(tapScale(), std::min(maxScale(), tapScale() * 1.5)));
    m_offset = QPointF(width() / 2, height() / 2) - rect.center() * m_scale;
    clampView();
    update();
    Q_EMIT viewChanged();
}

QString SeatMapItem::sectionAt(qreal x, qreal y) const
{
    if (!m_model || m_model->sections().empty())
        return {};
    const QPointF p = (QPointF(x, y) - m_offset) / m_scale;
    // Within a few rows of a seat (a finger on a 1 px seat lands between seats): that seat's section.
    const float reach = std::max(float(m_pitch) * 4, float(24 / m_scale));
    float best = reach * reach;
    int section = -1;
    for (const MapSeat &seat : m_model->seats()) {
        const float dx = seat.x - float(p.x()), dy = seat.y - float(p.y());
        const float d = dx * dx + dy * dy;
        if (d < best) {
            best = d;
            section = seat.section;
        }
    }
    return section >= 0 ? m_model->sections()[size_t(section)].name : QString();
}

QRectF SeatMapItem::sectionRect(const QString &name) const
{
    if (!m_model)
        return {};
    for (const MapSection &section : m_model->sections())
        if (section.name == name)
            return QRectF(m_offset + section.bounds.topLeft() * m_scale, section.bounds.size() * m_scale);
    return {};
}

void SeatMapItem::zoomToSection(const QString &name)
{
    if (!m_model)
        return;
    for (const MapSection &section : m_model->sections())
        if (section.name == name)
            return showLayoutRect(section.bounds);
}

void SeatMapItem::showSeats(const QStringList &seatIds)
{
    if (!m_model)
        return;
    qreal left = 1e9, top = 1e9, right = -1e9, bottom = -1e9;
    for (const QString &id : seatIds) {
        const int i = m_model->indexOf(id);
        if (i < 0)
            continue;
        const MapSeat &seat = m_model->seats()[size_t(i)];
        left = std::min<qreal>(left, seat.x), right = std::max<qreal>(right, seat.x);
        top = std::min<qreal>(top, seat.y), bottom = std::max<qreal>(bottom, seat.y);
    }
    if (left > right)
        return;
    // Seats already in view at a tappable zoom stay where they are (no jump under the customer's finger).
    const QRectF shown = QRectF(m_offset + QPointF(left, top) * m_scale, m_offset + QPointF(right, bottom) * m_scale);
    if (seatsTappable() && QRectF(0, 0, width(), height()).adjusted(m_pitch * m_scale, m_pitch * m_scale, -m_pitch * m_scale, -m_pitch * m_scale).contains(shown))
        return;
    showLayoutRect(QRectF(QPointF(left, top), QPointF(right, bottom)));
}

void SeatMapItem::zoomBy(qreal factor, qreal centreX, qreal centreY)
{
    if (!m_model || m_model->seats().empty())
        return;
    const QPointF centre(centreX, centreY);
    const QPointF layoutPoint = (centre - m_offset) / m_scale;
    m_scale *= factor;
    clampView();
    m_offset = centre - layoutPoint * m_scale;
    clampView();
    update();
    Q_EMIT viewChanged();
}

void SeatMapItem::panBy(qreal dx, qreal dy)
{
    m_offset += QPointF(dx, dy);
    clampView();
    update();
    Q_EMIT viewChanged();
}

void SeatMapItem::geometryChange(const QRectF &newGeometry, const QRectF &oldGeometry)
{
    QQuickItem::geometryChange(newGeometry, oldGeometry);
    if (newGeometry.size() != oldGeometry.size())
        resetView();
}

QString SeatMapItem::seatAt(qreal x, qreal y) const
{
    if (!m_model)
        return {};
    const QPointF p = (QPointF(x, y) - m_offset) / m_scale;
    const auto &seats = m_model->seats();
    float best = m_pitch * 0.6f;
    best *= best;
    int found = -1;
    for (size_t i = 0; i < seats.size(); ++i) {
        const float dx = seats[i].x - float(p.x()), dy = seats[i].y - float(p.y());
        const float d = dx * dx + dy * dy;
        if (d < best) {
            best = d;
            found = int(i);
        }
    }
    return found >= 0 ? seats[size_t(found)].seatId : QString();
}

QPointF SeatMapItem::seatPosition(const QString &seatId) const
{
    if (!m_model)
        return {};
    const int i = m_model->indexOf(seatId);
    if (i < 0)
        return {};
    const MapSeat &seat = m_model->seats()[size_t(i)];
    return m_offset + QPointF(seat.x, seat.y) * m_scale;
}

QSGNode *SeatMapItem::updateSoftwareNode(QSGNode *old)
{
    auto *node = static_cast<QSGImageNode *>(old);
    if (!m_model || m_model->seats().empty() || width() < 1 || height() < 1) {
        delete node;
        return nullptr;
    }
    if (!node)
        node = window()->createImageNode();
    const qreal dpr = window()->effectiveDevicePixelRatio();
    const QSize pixels(int(width() * dpr), int(height() * dpr));
    QImage &canvas = m_canvases[m_nextCanvas];
    m_nextCanvas = 1 - m_nextCanvas;
    if (canvas.size() != pixels)
        canvas = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    canvas.setDevicePixelRatio(dpr);
    canvas.fill(Qt::transparent);
    QPainter p(&canvas);
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(m_offset);
    p.scale(m_scale, m_scale);
    const QRectF stage = m_model->stageRect();
    if (m_model->stageIsEllipse()) {
        p.setPen(QPen(m_stageColor, m_pitch * 0.8));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(stage);
    } else if (stage.width() > 0) {
        p.fillRect(QRectF(stage.left(), stage.top() - m_pitch * 0.25, stage.width(), stage.height() + m_pitch * 0.5), m_stageColor);
    }
    const float h = m_seatHalf;
    const QColor held(0x79839A), booked(0x586074), taken(0xFF3B30), dark(0x0E1320);
    p.setPen(Qt::NoPen);
    for (size_t i = 0; i < m_model->seats().size(); ++i) {
        const MapSeat &seat = m_model->seats()[i];
        const QPointF c(seat.x, seat.y);
        auto square = [&](qreal half, const QColor &color) { p.fillRect(QRectF(c.x() - half, c.y() - half, 2 * half, 2 * half), color); };
        auto ring = [&](qreal half, qreal t, const QColor &color) {
            p.setPen(QPen(color, t, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(c.x() - half + t / 2, c.y() - half + t / 2, 2 * half - t, 2 * half - t));
            p.setPen(Qt::NoPen);
        };
        if (m_model->isHighlighted(int(i))) {
            ring(h * 1.2, h * 0.45, taken);
        } else if (m_model->isSelected(int(i))) {
            square(h * 1.15, m_selectedColor);
            square(h * 0.35, Qt::white);
        } else if (seat.status == SeatStatus::Booked) {
            p.setPen(QPen(booked, h * 0.35, Qt::SolidLine, Qt::FlatCap));
            p.drawLine(c + QPointF(-h * 0.8, -h * 0.8), c + QPointF(h * 0.8, h * 0.8));
            p.drawLine(c + QPointF(h * 0.8, -h * 0.8), c + QPointF(-h * 0.8, h * 0.8));
            p.setPen(Qt::NoPen);
        } else if (seat.status == SeatStatus::Held || seat.status == SeatStatus::Leased) { // leased: another till's, taken here
            ring(h * 0.9, h * 0.28, held);
        } else if (seat.wheelchair) {
            p.setBrush(m_model->tierColor(seat.tierIndex));
            p.drawEllipse(c, h * 1.05, h * 1.05);
        } else {
            square(h, m_model->tierColor(seat.tierIndex));
            if (seat.companion)
                square(h * 0.4, dark);
        }
    }
    p.end();
    node->setTexture(window()->createTextureFromImage(canvas));
    node->setOwnsTexture(true);
    node->setRect(boundingRect());
    ++m_uploads;
    return node;
}

QSGNode *SeatMapItem::updatePaintNode(QSGNode *old, UpdatePaintNodeData *)
{
    if (window() && window()->rendererInterface()->graphicsApi() == QSGRendererInterface::Software)
        return updateSoftwareNode(old);
    auto *root = static_cast<QSGTransformNode *>(old);
    if (!m_model || m_model->seats().empty()) {
        delete root;
        return nullptr;
    }
    QSGGeometryNode *stageNode = nullptr;
    if (!root) {
        root = new QSGTransformNode;
        stageNode = new QSGGeometryNode;
        stageNode->setGeometry(new QSGGeometry(QSGGeometry::defaultAttributes_Point2D(), 0));
        stageNode->setFlag(QSGNode::OwnsGeometry);
        stageNode->setMaterial(new QSGFlatColorMaterial);
        stageNode->setFlag(QSGNode::OwnsMaterial);
        root->appendChildNode(stageNode);
        m_layoutDirty = true;
    } else {
        stageNode = static_cast<QSGGeometryNode *>(root->firstChild());
    }

    QMatrix4x4 matrix;
    matrix.translate(float(m_offset.x()), float(m_offset.y()));
    matrix.scale(float(m_scale));
    root->setMatrix(matrix);

    const auto &seats = m_model->seats();
    if (m_layoutDirty) {
        // The screen edge: a thick bar (a cinema) or an elliptic ring (a stadium pitch).
        QSGGeometry *g = stageNode->geometry();
        g->setDrawingMode(QSGGeometry::DrawTriangleStrip);
        const QRectF stage = m_model->stageRect();
        if (m_model->stageIsEllipse()) {
            const int segments = 96;
            g->allocate((segments + 1) * 2);
            auto *v = g->vertexDataAsPoint2D();
            const QPointF c = stage.center();
            const qreal t = m_pitch * 0.8;
            for (int i = 0; i <= segments; ++i) {
                const double a = 2 * M_PI * i / segments;
                v[2 * i].set(float(c.x() + std::cos(a) * stage.width() / 2), float(c.y() + std::sin(a) * stage.height() / 2));
                v[2 * i + 1].set(float(c.x() + std::cos(a) * (stage.width() / 2 - t)), float(c.y() + std::sin(a) * (stage.height() / 2 - t)));
            }
        } else if (stage.width() > 0) {
            g->allocate(4);
            auto *v = g->vertexDataAsPoint2D();
            const float t = m_pitch * 0.5f;
            v[0].set(float(stage.left()), float(stage.top()) - t / 2);
            v[1].set(float(stage.right()), float(stage.top()) - t / 2);
            v[2].set(float(stage.left()), float(stage.bottom()) + t / 2);
            v[3].set(float(stage.right()), float(stage.bottom()) + t / 2);
        } else {
            g->allocate(0);
        }
        static_cast<QSGFlatColorMaterial *>(stageNode->material())->setColor(m_stageColor);
        stageNode->markDirty(QSGNode::DirtyGeometry | QSGNode::DirtyMaterial);

        // The seats in nodes of at most kSeatsPerNode seats. One node for a whole stadium (960,000 vertices) is
        // cut short by renderers that index vertices with 16 bits (the OpenGL scene graph drew 2,731 seats of
        // 40,000); 2,048 seats are 49,152 vertices, and a status change re-uploads only its own node.
        while (root->childCount() > 1) {
            QSGNode *chunk = root->lastChild();
            root->removeChildNode(chunk);
            delete chunk;
        }
        const int seatCount = int(seats.size());
        for (int first = 0; first < seatCount; first += kSeatsPerNode) {
            auto *chunk = new QSGGeometryNode;
            chunk->setGeometry(new QSGGeometry(QSGGeometry::defaultAttributes_ColoredPoint2D(), std::min(kSeatsPerNode, seatCount - first) * kVerticesPerSeat));
            chunk->geometry()->setDrawingMode(QSGGeometry::DrawTriangles);
            chunk->setFlag(QSGNode::OwnsGeometry);
            chunk->setMaterial(new QSGVertexColorMaterial);
            chunk->setFlag(QSGNode::OwnsMaterial);
            root->appendChildNode(chunk);
        }
        m_drawnKeys.assign(seats.size(), 0);
        m_seatsDirty = true;
        m_layoutDirty = false;
    }

    if (m_seatsDirty) {
        const float h = m_seatHalf;
        const Rgba held = rgba(QColor(0x79839A)), booked = rgba(QColor(0x586074)), taken = rgba(QColor(0xFF3B30));
        const Rgba white = rgba(QColor(Qt::white)), dark = rgba(QColor(0x0E1320)), selected = rgba(m_selectedColor);
        bool changed = false;
        QSGNode *chunkNode = stageNode->nextSibling();
        for (size_t first = 0; first < seats.size() && chunkNode; first += kSeatsPerNode, chunkNode = chunkNode->nextSibling()) {
            auto *chunk = static_cast<QSGGeometryNode *>(chunkNode);
            Vertex *vertices = chunk->geometry()->vertexDataAsColoredPoint2D();
            bool chunkChanged = false;
            for (size_t i = first; i < std::min(seats.size(), first + kSeatsPerNode); ++i) {
                const MapSeat &seat = seats[i];
                Shape shape = Available;
                if (m_model->isHighlighted(int(i)))
                    shape = Taken;
                else if (m_model->isSelected(int(i)))
                    shape = Selected;
                else if (seat.status == SeatStatus::Booked)
                    shape = Booked;
                else if (seat.status == SeatStatus::Held || seat.status == SeatStatus::Leased)
                    shape = Held;
                else if (seat.wheelchair)
                    shape = Wheelchair;
                else if (seat.companion)
                    shape = Companion;
                const quint32 key = quint32(shape) | quint32(seat.tierIndex + 1) << 4;
                if (m_drawnKeys[i] == key)
                    continue;
                m_drawnKeys[i] = key;
                chunkChanged = true;
                SeatWriter w(vertices + (i - first) * kVerticesPerSeat, seat.x, seat.y);
                const Rgba tier = rgba(m_model->tierColor(seat.tierIndex));
                switch (shape) {
                case Available:
                    w.square(h, tier);
                    break;
                case Wheelchair:
                    w.octagon(h, tier);
                    break;
                case Companion:
                    w.square(h, tier);
                    w.square(h * 0.4f, dark);
                    break;
                case Selected:
                    w.square(h * 1.15f, selected);
                    w.square(h * 0.35f, white);
                    break;
                case Held:
                    w.ring(h * 0.9f, h * 0.28f, held);
                    break;
                case Booked:
                    w.cross(h * 0.8f, h * 0.35f, booked);
                    break;
                case Taken:
                    w.ring(h * 1.2f, h * 0.45f, taken);
                    break;
                }
            }
            if (chunkChanged) {
                chunk->markDirty(QSGNode::DirtyGeometry);
                ++m_nodeUploads;
                changed = true;
            }
        }
        if (changed)
            ++m_uploads;
        m_seatsDirty = false;
    }
    return root;
}

void SeatMapItem::pointerPress(QPointF position)
{
    m_pressed = true;
    m_dragging = false;
    m_pressPosition = m_lastPosition = position;
}

void SeatMapItem::pointerMove(QPointF position)
{
    if (!m_pressed)
        return;
    if (!m_dragging && QLineF(position, m_pressPosition).length() > 12)
        m_dragging = true;
    if (m_dragging)
        panBy(position.x() - m_lastPosition.x(), position.y() - m_lastPosition.y());
    m_lastPosition = position;
}

void SeatMapItem::pointerRelease(QPointF position)
{
    if (m_pressed && !m_dragging) {
        if (seatsTappable()) {
            const QString seat = seatAt(position.x(), position.y());
            if (!seat.isEmpty())
                Q_EMIT seatTapped(seat);
        } else if (const QString section = sectionAt(position.x(), position.y()); !section.isEmpty()) {
            zoomToSection(section);
            Q_EMIT sectionTapped(section);
        } else {
            // Seats too small to hit with a finger: zoom in where the tap landed, to touch size.
            zoomBy(tapScale() / m_scale, position.x(), position.y());
        }
    }
    m_pressed = false;
    m_dragging = false;
}

void SeatMapItem::mousePressEvent(QMouseEvent *event)
{
    pointerPress(event->position());
    event->accept();
}

void SeatMapItem::mouseMoveEvent(QMouseEvent *event)
{
    pointerMove(event->position());
}

void SeatMapItem::mouseReleaseEvent(QMouseEvent *event)
{
    pointerRelease(event->position());
}

void SeatMapItem::wheelEvent(QWheelEvent *event)
{
    const qreal steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.25, steps), event->position().x(), event->position().y());
    event->accept();
}

void SeatMapItem::touchEvent(QTouchEvent *event)
{
    const auto &points = event->points();
    if (points.size() >= 2) {
        // Pinch: zoom by the change of distance between the first two fingers, around their midpoint.
        const QPointF a = points[0].position(), b = points[1].position();
        const qreal distance = QLineF(a, b).length();
        const QPointF mid = (a + b) / 2;
        if (m_pinchDistance > 0 && distance > 0)
            zoomBy(distance / m_pinchDistance, mid.x(), mid.y());
        m_pinchDistance = distance;
        m_pressed = false; // a pinch is never a tap
        event->accept();
        return;
    }
    m_pinchDistance = 0;
    if (points.isEmpty())
        return;
    const QEventPoint &point = points.first();
    switch (point.state()) {
    case QEventPoint::Pressed:
        pointerPress(point.position());
        break;
    case QEventPoint::Updated:
        pointerMove(point.position());
        break;
    case QEventPoint::Released:
        pointerRelease(point.position());
        break;
    default:
        break;
    }
    event->accept();
}

} // namespace marquee::app
