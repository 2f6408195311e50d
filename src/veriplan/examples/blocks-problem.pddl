; Three blocks: c sits on a; build the tower a on b on c.
(define (problem invert-three)
  (:domain blocks)
  (:objects a b c)
  (:init (handempty) (ontable a) (ontable b) (on c a) (clear c) (clear b))
  (:goal (and (on a b) (on b c))))
