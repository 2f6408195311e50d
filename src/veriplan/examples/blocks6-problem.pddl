; A six-block problem in the style of PlanBench's Blocksworld-hard set, written for
; veriplan's demo: two towers are rebuilt into one. (The first demo problem written,
; a two-tower goal, is not solved by the embedded model: see docs/RESULTS.md.)
(define (problem blocks6-demo)
  (:domain blocks)
  (:objects a b c d e f)
  (:init
    (handempty)
    (ontable c) (on a c) (on f a) (clear f)
    (ontable e) (on b e) (on d b) (clear d))
  (:goal (and (on b d) (on d f) (on f a) (on a e) (on e c))))
